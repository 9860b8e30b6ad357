// The one list of every type that crosses an actor boundary.
#pragma once

#include "caf/actor_system_config.hpp"

namespace rmq {

/// Adds every rmq message type and typed-actor handle to `cfg` under its
/// wire name "rmq.<type>". Forgetting one fails only at run time (Debian's
/// CAF has no type-ID checks), so tests/messages checks each of them.
void register_message_types(caf::actor_system_config& cfg);

} // namespace rmq
