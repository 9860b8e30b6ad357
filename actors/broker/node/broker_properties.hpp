// A broker's settings by RocketMQ's BrokerConfig and MessageStoreConfig
// names, as GET_BROKER_CONFIG (26) answers them to mqadmin
// getBrokerConfig and the dashboard (docs/remoting.md, "Broker admin").
// A broker reads its settings at start, so this is the running truth.
#pragma once

#include <map>
#include <string>

#include "actors/broker/node/broker_node.hpp"

namespace rmq {

std::map<std::string, std::string>
broker_properties(const broker_options& opts);

} // namespace rmq
