// The broker's remoting requests (docs/remoting.md, "Broker"): each
// becomes the typed request our own clients send to the broker's front,
// its answer the response RocketMQ's broker gives. The born host of a
// sent message is the connection's peer, as RocketMQ's broker takes it.
#pragma once

#include <map>
#include <string>

#include "actors/common/remoting_server.hpp"
#include "messages/broker/broker.hpp"

namespace rmq {

/// The handler for start_remoting_server: serves `front`'s clients;
/// `config` is what GET_BROKER_CONFIG answers (broker_properties).
remoting_handler broker_remoting(broker_actor front,
                                 std::map<std::string, std::string> config);

} // namespace rmq
