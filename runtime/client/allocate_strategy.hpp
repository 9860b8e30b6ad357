// How a consumer group shares a topic's queues (RocketMQ
// AllocateMessageQueueStrategy): pure functions every member runs on the
// same sorted inputs, so that each queue gets exactly one owner without the
// members talking to each other.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/client/client.hpp"

namespace rmq {

/// Returns the queues `self_id` owns among `queues`, shared by `members`
/// (both sorted by the caller, as RocketMQ's rebalance does: every member
/// must see the same order). [] when `self_id` is empty or not a member,
/// or when there are no queues or members (RocketMQ throws for those).
using allocate_function = std::function<std::vector<message_queue>(
  const std::string& group, const std::string& self_id,
  const std::vector<message_queue>& queues,
  const std::vector<std::string>& members)>;

/// A strategy and its RocketMQ name (getName()).
struct allocate_strategy {
  std::string name;
  allocate_function allocate;
};

/// RocketMQ's default number of virtual nodes per member on the ring.
constexpr int consistent_hash_virtual_nodes = 10;

/// AllocateMessageQueueAveragely ("AVG"): contiguous blocks; the first
/// `queues % members` members get one queue more.
std::vector<message_queue>
allocate_averagely(const std::string& group, const std::string& self_id,
                   const std::vector<message_queue>& queues,
                   const std::vector<std::string>& members);

/// AllocateMessageQueueAveragelyByCircle ("AVG_BY_CIRCLE"): queue i goes
/// to member i % members.
std::vector<message_queue>
allocate_averagely_by_circle(const std::string& group,
                             const std::string& self_id,
                             const std::vector<message_queue>& queues,
                             const std::vector<std::string>& members);

/// AllocateMessageQueueConsistentHash ("CONSISTENT_HASH"): each member is
/// put on a hash ring `virtual_nodes` times (key `id-<i>`); a queue goes
/// to the first node at or after the hash of its RocketMQ toString(). A
/// member joining or leaving moves only the queues next to its nodes.
std::vector<message_queue>
allocate_consistent_hash(const std::string& group, const std::string& self_id,
                         const std::vector<message_queue>& queues,
                         const std::vector<std::string>& members,
                         int virtual_nodes = consistent_hash_virtual_nodes);

/// The ring's hash (RocketMQ ConsistentHashRouter.MD5Hash): the first four
/// bytes of the MD5 digest of `key`, big-endian, as an unsigned number.
int64_t consistent_hash_of(std::string_view key);

/// RocketMQ's MessageQueue.toString(), the key a queue is hashed by.
std::string queue_hash_key(const message_queue& queue);

/// Returns the strategy RocketMQ names `name` ("AVG", "AVG_BY_CIRCLE",
/// "CONSISTENT_HASH" with 10 virtual nodes), or nullopt.
std::optional<allocate_strategy> find_allocate_strategy(std::string_view name);

/// The consistent-hash strategy with another number of virtual nodes
/// (at least 1).
allocate_strategy consistent_hash_strategy(int virtual_nodes);

} // namespace rmq
