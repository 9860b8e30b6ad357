#include "runtime/client/queue_selector.hpp"

namespace rmq {

namespace {

/// One lap over `queues` from `index`: the first queue `accept` takes.
/// Every queue looked at advances `index`, as RocketMQ's
/// sendWhichQueue.incrementAndGet() does per try.
template <class Predicate>
std::optional<size_t> one_lap(const std::vector<message_queue>& queues,
                              uint32_t& index, Predicate accept) {
  for (size_t i = 0; i < queues.size(); ++i) {
    auto pos = static_cast<size_t>(index++ % queues.size());
    if (accept(queues[pos]))
      return pos;
  }
  return std::nullopt;
}

} // namespace

std::optional<size_t> select_queue(const std::vector<message_queue>& queues,
                                   const std::string& last_broker,
                                   const latency_fault_table* faults,
                                   int64_t now_ns, uint32_t& index) {
  if (queues.empty())
    return std::nullopt;
  auto not_last = [&](const message_queue& q) {
    return last_broker.empty() || q.broker_name != last_broker;
  };
  if (faults != nullptr) {
    auto available = [&](const message_queue& q) {
      return not_last(q) && faults->is_available(q.broker_name, now_ns);
    };
    if (auto pos = one_lap(queues, index, available))
      return pos;
    auto reachable = [&](const message_queue& q) {
      return not_last(q) && faults->is_reachable(q.broker_name);
    };
    if (auto pos = one_lap(queues, index, reachable))
      return pos;
  } else if (auto pos = one_lap(queues, index, not_last)) {
    return pos;
  }
  // Everything filtered out: the next queue anyway, as RocketMQ's
  // unfiltered selectOneMessageQueue(), so a send is still tried.
  return static_cast<size_t>(index++ % queues.size());
}

} // namespace rmq
