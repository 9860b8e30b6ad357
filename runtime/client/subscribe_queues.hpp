// Where a consumer reads a topic (RocketMQ MQClientInstance
// .topicRouteData2TopicSubscribeInfo and findBrokerAddressInSubscribe):
// the queues the rebalance allocates and a lite pull consumer's
// fetchMessageQueues answers, and which of a broker group's nodes serves
// them — the master while it is in the route, else a slave
// (docs/replication.md, "Reading from a slave").
#pragma once

#include <string>
#include <vector>

#include "messages/client/client.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

/// Queues 0..read_queue_nums-1 of every queue data with read permission
/// whose broker has a node (master or slave) in `route`, sorted (topic,
/// broker, id): a group whose master is gone is still read from its slave.
std::vector<message_queue> subscribe_queues(const std::string& topic,
                                            const topic_route_data& route);

/// The address a consumer reads `b` at: its master's, else (`only_master`
/// false) its slave with the lowest id; empty when there is none.
std::string subscribe_address(const broker_data& b, bool only_master = false);

/// The same for `broker_name` in `route`; empty when it is not there.
std::string subscribe_address(const topic_route_data& route,
                              const std::string& broker_name,
                              bool only_master = false);

} // namespace rmq
