// Request-reply on the client side: the typed interface of a client
// instance's request holder (actors/client/producer/request_holder.*, RocketMQ
// RequestFutureHolder), which keeps the requests of every producer of the
// instance that wait for their reply. See docs/request-reply.md.
#pragma once

#include <string>

#include "caf/error.hpp"
#include "caf/replies_to.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/reply.hpp"
#include "messages/client/client.hpp"
#include "messages/client/received_message.hpp"
#include "messages/common/common.hpp"

namespace rmq {

/// Interface of the request holder.
using request_holder_actor = dumpable_actor::extend<
  // Waits for the reply with this correlation id for at most the
  // timespan (on the actor clock): the reply, or request_timeout.
  // invalid_parameter for an id already waiting.
  caf::replies_to<request_atom, std::string,
                  caf::timespan>::with<received_message>,
  // Ends a wait with an error (its request could not be sent).
  caf::reacts_to<caf::delete_atom, std::string, caf::error>,
  // A reply pushed by a broker, forwarded by the heartbeat actor (the
  // client's channel); one nobody waits for (late) is dropped and logged.
  caf::reacts_to<push_reply_message>,
  // The holder's one timer: waits past their deadline end.
  caf::reacts_to<caf::tick_atom>>;

} // namespace rmq
