// A one-shot actor on its own thread that probes `host:port` with a
// deadline (runtime/net/tcp_probe.hpp) and only then passes the connect
// on to the real connector, which answers the original requester. Spawn
// one per connect with `spawn<caf::detached>`: the probe blocks.
#pragma once

#include <chrono>

#include "caf/actor.hpp"
#include "caf/behavior.hpp"
#include "caf/event_based_actor.hpp"

namespace rmq {

/// Answers one `(connect_atom, std::string host, uint16_t port)` as
/// `connector` does, or cannot_connect_to_node when the host does not
/// accept a TCP connection within `timeout`; then quits.
caf::behavior tcp_prober(caf::event_based_actor* self, caf::actor connector,
                         std::chrono::milliseconds timeout);

} // namespace rmq
