#include "runtime/client/subscribe_queues.hpp"

#include <algorithm>

namespace rmq {

std::vector<message_queue> subscribe_queues(const std::string& topic,
                                            const topic_route_data& route) {
  auto has_master = [&](const std::string& broker_name) {
    for (auto& b : route.broker_datas)
      if (b.broker_name == broker_name && b.broker_addrs.count(master_id) > 0)
        return true;
    return false;
  };
  std::vector<message_queue> result;
  for (auto& q : route.queue_datas) {
    if ((q.perm & perm::read) == 0 || !has_master(q.broker_name))
      continue;
    for (int32_t i = 0; i < q.read_queue_nums; ++i)
      result.push_back(message_queue{topic, q.broker_name, i});
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end(),
                           [](const message_queue& x, const message_queue& y) {
                             return !(x < y) && !(y < x);
                           }),
               result.end());
  return result;
}

} // namespace rmq
