// One remoting client's channel on a broker (docs/remoting.md, "Clients"):
// spawned at the first HEART_BEAT on a connection and stopped by the
// remoting server when that connection closes. It sends the client's
// heartbeats to the broker, so the client manager monitors it as it
// monitors a CAF client's channel (a closed connection unregisters the
// client at once), and turns what the broker sends a client's channel
// (consumer_ids_changed, check_transaction_state, push_reply_message)
// into requests on the connection, and answers the broker's
// get_consumer_running_info_request with what the client answers.
#pragma once

#include <cstdint>

#include "caf/actor.hpp"
#include "caf/event_based_actor.hpp"

#include "messages/broker/broker.hpp"

namespace rmq {

caf::behavior remoting_channel(caf::event_based_actor* self, broker_actor front,
                               caf::actor server, uint64_t connection);

} // namespace rmq
