#include "runtime/client/publish_queues.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace rmq {

namespace {

const broker_data* find_broker(const topic_route_data& route,
                               const std::string& broker_name) {
  for (auto& bd : route.broker_datas)
    if (bd.broker_name == broker_name)
      return &bd;
  return nullptr;
}

/// Parses "brokerA:4;brokerB:4" in its order. RocketMQ throws on a
/// malformed entry and so loses the whole route; skipping just that entry
/// keeps the topic usable.
std::vector<message_queue> order_queues(const std::string& topic,
                                        std::string_view conf) {
  std::vector<message_queue> result;
  while (!conf.empty()) {
    auto end = conf.find(';');
    auto entry = conf.substr(0, end);
    conf = end == std::string_view::npos ? std::string_view{}
                                         : conf.substr(end + 1);
    auto colon = entry.find(':');
    if (colon == std::string_view::npos || colon == 0)
      continue;
    auto num_str = entry.substr(colon + 1);
    int32_t nums = 0;
    auto [ptr, ec] = std::from_chars(num_str.data(),
                                     num_str.data() + num_str.size(), nums);
    if (ec != std::errc{} || ptr != num_str.data() + num_str.size())
      continue;
    std::string broker{entry.substr(0, colon)};
    for (int32_t i = 0; i < nums; ++i)
      result.push_back(message_queue{topic, broker, i});
  }
  return result;
}

} // namespace

std::vector<message_queue> publish_queues(const std::string& topic,
                                          const topic_route_data& route) {
  // The order config's own order is the queue order: ordered senders hash
  // onto positions in this list, as in RocketMQ.
  if (!route.order_topic_conf.empty())
    return order_queues(topic, route.order_topic_conf);
  std::vector<message_queue> result;
  for (auto& qd : route.queue_datas) {
    if ((qd.perm & perm::write) == 0)
      continue;
    auto bd = find_broker(route, qd.broker_name);
    if (bd == nullptr || bd->broker_addrs.count(master_id) == 0)
      continue;
    for (int32_t i = 0; i < qd.write_queue_nums; ++i)
      result.push_back(message_queue{topic, qd.broker_name, i});
  }
  // RocketMQ sorts the queue datas by broker name; sorting the queues
  // also orders duplicate queue datas of one broker.
  std::sort(result.begin(), result.end());
  return result;
}

std::vector<message_queue>
default_publish_queues(const std::string& topic,
                       const topic_route_data& default_route,
                       int32_t default_queue_nums) {
  // As updateTopicRouteInfoFromNameServer with isDefault: each broker's
  // queue count is min(defaultTopicQueueNums, its read queue count).
  // The default topic's order config (if any) is not the new topic's, and
  // would bypass the cap.
  auto route = default_route;
  route.order_topic_conf.clear();
  for (auto& qd : route.queue_datas) {
    auto nums = std::min(default_queue_nums, qd.read_queue_nums);
    qd.read_queue_nums = nums;
    qd.write_queue_nums = nums;
  }
  return publish_queues(topic, route);
}

std::string master_address(const topic_route_data& route,
                           const std::string& broker_name) {
  auto bd = find_broker(route, broker_name);
  if (bd == nullptr)
    return {};
  auto i = bd->broker_addrs.find(master_id);
  return i == bd->broker_addrs.end() ? std::string{} : i->second;
}

} // namespace rmq
