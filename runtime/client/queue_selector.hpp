// Queue choice for one send attempt (RocketMQ 5
// MQFaultStrategy.selectOneMessageQueue with its broker filters).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/client/client.hpp"
#include "runtime/client/latency_fault_table.hpp"

namespace rmq {

/// Picks the index of a queue in `queues`, walking round-robin from
/// `index` (which advances past the pick) for at most one lap per pass.
/// With `faults` (fault tolerance on) the passes accept: available and not
/// on `last_broker`; then reachable and not on `last_broker`; then any.
/// Without: not on `last_broker`; then any. nullopt when `queues` is empty.
std::optional<size_t> select_queue(const std::vector<message_queue>& queues,
                                   const std::string& last_broker,
                                   const latency_fault_table* faults,
                                   int64_t now_ns, uint32_t& index);

} // namespace rmq
