#include "runtime/client/latency_fault_table.hpp"

#include <algorithm>
#include <utility>

namespace rmq {

namespace {

/// What RocketMQ's updateFaultItem uses for an isolating failure.
constexpr int64_t isolation_latency_ms = 10000;

constexpr int64_t ns_per_ms = 1000000;

} // namespace

int64_t not_available_ms(const fault_policy& policy, int64_t latency_ms,
                         bool isolation) {
  auto latency = isolation ? isolation_latency_ms : latency_ms;
  auto n = std::min(policy.latency_max.size(),
                    policy.not_available_duration.size());
  for (auto i = n; i > 0; --i)
    if (latency >= policy.latency_max[i - 1])
      return policy.not_available_duration[i - 1];
  return 0;
}

latency_fault_table::latency_fault_table(fault_policy policy)
  : policy_(std::move(policy)) {
  // nop
}

bool latency_fault_table::update(const fault_report& report, int64_t now_ns) {
  auto duration_ms = not_available_ms(policy_, report.latency_ms,
                                      report.isolation);
  auto [i, added] = items_.try_emplace(report.broker_name);
  auto& item = i->second;
  if (added)
    item.broker_name = report.broker_name;
  bool changed = added ? !report.reachable : item.reachable != report.reachable;
  item.latency_ms = report.latency_ms;
  item.reachable = report.reachable;
  // As FaultItem.updateNotAvailableDuration: a zero duration never ends an
  // earlier isolation, and a shorter one never shortens it.
  if (duration_ms > 0) {
    auto until = now_ns + duration_ms * ns_per_ms;
    if (until > item.available_at_ns) {
      // Moving the end later changes what the listeners' copies answer
      // from now on (out, or out for longer).
      item.available_at_ns = until;
      changed = true;
    }
  }
  return changed;
}

bool latency_fault_table::is_available(const std::string& broker,
                                       int64_t now_ns) const {
  auto i = items_.find(broker);
  return i == items_.end() || now_ns >= i->second.available_at_ns;
}

bool latency_fault_table::is_reachable(const std::string& broker) const {
  auto i = items_.find(broker);
  return i == items_.end() || i->second.reachable;
}

void latency_fault_table::remove(const std::string& broker) {
  items_.erase(broker);
}

fault_snapshot latency_fault_table::snapshot() const {
  fault_snapshot result;
  result.items.reserve(items_.size());
  for (auto& kvp : items_)
    result.items.push_back(kvp.second);
  return result;
}

void latency_fault_table::assign(const fault_snapshot& x) {
  items_.clear();
  for (auto& item : x.items)
    items_[item.broker_name] = item;
}

} // namespace rmq
