#include "runtime/client/subscribe_queues.hpp"

#include <algorithm>

namespace rmq {

std::vector<message_queue> subscribe_queues(const std::string& topic,
                                            const topic_route_data& route) {
  auto has_node = [&](const std::string& broker_name) {
    return !subscribe_address(route, broker_name).empty();
  };
  std::vector<message_queue> result;
  for (auto& q : route.queue_datas) {
    if ((q.perm & perm::read) == 0 || !has_node(q.broker_name))
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

std::string subscribe_address(const broker_data& b, bool only_master) {
  // broker_addrs is ordered by id: the master (0) first, then the slaves.
  for (auto& [id, addr] : b.broker_addrs) {
    if (addr.empty())
      continue;
    if (id == master_id || !only_master)
      return addr;
  }
  return {};
}

std::string subscribe_address(const topic_route_data& route,
                              const std::string& broker_name,
                              bool only_master) {
  for (auto& b : route.broker_datas)
    if (b.broker_name == broker_name)
      if (auto addr = subscribe_address(b, only_master); !addr.empty())
        return addr;
  return {};
}

} // namespace rmq
