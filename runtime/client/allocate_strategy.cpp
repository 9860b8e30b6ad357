#include "runtime/client/allocate_strategy.hpp"

#include <algorithm>
#include <map>

#include <openssl/evp.h>

namespace rmq {

namespace {

/// The index of `self_id` in `members`, or nullopt where RocketMQ's check()
/// refuses (or throws).
std::optional<size_t> member_index(const std::string& self_id,
                                   const std::vector<message_queue>& queues,
                                   const std::vector<std::string>& members) {
  if (self_id.empty() || queues.empty() || members.empty())
    return std::nullopt;
  auto i = std::find(members.begin(), members.end(), self_id);
  if (i == members.end())
    return std::nullopt;
  return static_cast<size_t>(i - members.begin());
}

} // namespace

std::vector<message_queue>
allocate_averagely(const std::string&, const std::string& self_id,
                   const std::vector<message_queue>& queues,
                   const std::vector<std::string>& members) {
  std::vector<message_queue> result;
  auto found = member_index(self_id, queues, members);
  if (!found)
    return result;
  auto index = *found;
  auto n = queues.size();
  auto m = members.size();
  auto mod = n % m;
  size_t average = n <= m ? 1 : (mod > 0 && index < mod ? n / m + 1 : n / m);
  auto start = mod > 0 && index < mod ? index * average : index * average + mod;
  if (start >= n)
    return result;
  auto range = std::min(average, n - start);
  result.assign(queues.begin() + static_cast<ptrdiff_t>(start),
                queues.begin() + static_cast<ptrdiff_t>(start + range));
  return result;
}

std::vector<message_queue>
allocate_averagely_by_circle(const std::string&, const std::string& self_id,
                             const std::vector<message_queue>& queues,
                             const std::vector<std::string>& members) {
  std::vector<message_queue> result;
  auto found = member_index(self_id, queues, members);
  if (!found)
    return result;
  for (auto i = *found; i < queues.size(); i += members.size())
    result.push_back(queues[i]);
  return result;
}

int64_t consistent_hash_of(std::string_view key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(key.data(), key.size(), digest, &len, EVP_md5(), nullptr) != 1
      || len < 4)
    return 0;
  int64_t h = 0;
  for (int i = 0; i < 4; ++i)
    h = (h << 8) | digest[i];
  return h;
}

std::string queue_hash_key(const message_queue& queue) {
  return "MessageQueue [topic=" + queue.topic
         + ", brokerName=" + queue.broker_name
         + ", queueId=" + std::to_string(queue.queue_id) + "]";
}

std::vector<message_queue>
allocate_consistent_hash(const std::string&, const std::string& self_id,
                         const std::vector<message_queue>& queues,
                         const std::vector<std::string>& members,
                         int virtual_nodes) {
  std::vector<message_queue> result;
  if (!member_index(self_id, queues, members) || virtual_nodes < 1)
    return result;
  // Ring position -> member index. A later node takes a position already
  // taken, as RocketMQ's TreeMap#put does.
  std::map<int64_t, size_t> ring;
  for (size_t m = 0; m < members.size(); ++m)
    for (int i = 0; i < virtual_nodes; ++i)
      ring[consistent_hash_of(members[m] + "-" + std::to_string(i))] = m;
  for (auto& queue : queues) {
    auto pos = ring.lower_bound(consistent_hash_of(queue_hash_key(queue)));
    if (pos == ring.end())
      pos = ring.begin();
    if (members[pos->second] == self_id)
      result.push_back(queue);
  }
  return result;
}

allocate_strategy consistent_hash_strategy(int virtual_nodes) {
  virtual_nodes = std::max(virtual_nodes, 1);
  return {"CONSISTENT_HASH",
          [virtual_nodes](const std::string& group, const std::string& self_id,
                          const std::vector<message_queue>& queues,
                          const std::vector<std::string>& members) {
            return allocate_consistent_hash(group, self_id, queues, members,
                                            virtual_nodes);
          }};
}

std::optional<allocate_strategy> find_allocate_strategy(std::string_view name) {
  if (name == "AVG")
    return allocate_strategy{"AVG", allocate_averagely};
  if (name == "AVG_BY_CIRCLE")
    return allocate_strategy{"AVG_BY_CIRCLE", allocate_averagely_by_circle};
  if (name == "CONSISTENT_HASH")
    return consistent_hash_strategy(consistent_hash_virtual_nodes);
  return std::nullopt;
}

} // namespace rmq
