// The queues a producer may send a topic to, read off its route (RocketMQ
// MQClientInstance.topicRouteData2TopicPublishInfo).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/client/client.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

/// The writable queues of `topic`: with an order_topic_conf
/// ("brokerA:4;brokerB:4") the queues it lists, in its order (malformed
/// entries skipped); else, for each queue data with write permission whose
/// broker has a master (id 0), queues 0..write_queue_nums-1, sorted by
/// broker name, then queue id.
std::vector<message_queue> publish_queues(const std::string& topic,
                                          const topic_route_data& route);

/// The queues for a topic no NameServer knows yet, taken from the route of
/// the default topic (TBW102) so the broker auto-creates it: the same
/// brokers, each with at most `default_queue_nums` queues.
std::vector<message_queue>
default_publish_queues(const std::string& topic,
                       const topic_route_data& default_route,
                       int32_t default_queue_nums);

/// The master's (id 0) address of `broker_name` in `route`, or "" when the
/// route has none.
std::string master_address(const topic_route_data& route,
                           const std::string& broker_name);

} // namespace rmq
