// The bodies of route answers in RocketMQ's JSON (TopicRouteData,
// QueueData, BrokerData), written as standard JSON: broker ids are quoted
// object keys, as RocketMQ NameServers write them since 4.9.4
// (docs/remoting.md, "Routes"). rmq-admin prints routes the same way.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "messages/namesrv/route.hpp"

namespace rmq::remoting {

/// brokerAddrs: broker id (as a quoted key) to address.
nlohmann::json broker_addrs_json(const std::map<int64_t, std::string>& addrs);

nlohmann::json to_json(const queue_data& qd);

nlohmann::json to_json(const broker_data& bd);

nlohmann::json to_json(const topic_route_data& route);

} // namespace rmq::remoting
