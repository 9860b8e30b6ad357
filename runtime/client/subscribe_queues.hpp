// The queues a consumer may read of a topic (RocketMQ
// MQClientInstance.topicRouteData2TopicSubscribeInfo): what the rebalance
// allocates and a lite pull consumer's fetchMessageQueues answers.
#pragma once

#include <string>
#include <vector>

#include "messages/client/client.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

/// Queues 0..read_queue_nums-1 of every queue data with read permission
/// whose broker has a master in `route`, sorted (topic, broker, id).
std::vector<message_queue> subscribe_queues(const std::string& topic,
                                            const topic_route_data& route);

} // namespace rmq
