// The latency-fault bookkeeping of RocketMQ 5's LatencyFaultToleranceImpl
// and MQFaultStrategy, as plain C++ on a caller-given clock (actor-clock
// nanoseconds), so the fault-table actor and every send loop's copy of its
// state share one implementation.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/client/client.hpp"

namespace rmq {

/// Latency steps and how long a broker stays out after each (RocketMQ
/// latencyMax / notAvailableDuration, ms).
struct fault_policy {
  std::vector<int64_t> latency_max{50, 100, 550, 1800, 3000, 5000, 15000};
  std::vector<int64_t> not_available_duration{0,    0,     2000, 5000,
                                              6000, 10000, 30000};
};

/// How long (ms) a broker is kept out after a send that took `latency_ms`:
/// the duration of the largest step the latency reaches; `isolation`
/// counts as a latency of 10 s.
int64_t not_available_ms(const fault_policy& policy, int64_t latency_ms,
                         bool isolation);

class latency_fault_table {
public:
  explicit latency_fault_table(fault_policy policy = {});

  /// Records one outcome at `now_ns` (RocketMQ updateFaultItem): the
  /// latency and reachability are overwritten; the broker's
  /// available-again time only moves later. Returns whether availability
  /// or reachability changed (listeners need the new table).
  bool update(const fault_report& report, int64_t now_ns);

  /// Unknown brokers are available.
  bool is_available(const std::string& broker, int64_t now_ns) const;

  /// Unknown brokers are reachable.
  bool is_reachable(const std::string& broker) const;

  /// Forgets a broker (it left every route).
  void remove(const std::string& broker);

  fault_snapshot snapshot() const;

  /// Replaces the state with `x` (a send loop's copy of the actor's).
  void assign(const fault_snapshot& x);

  const fault_policy& policy() const {
    return policy_;
  }

private:
  fault_policy policy_;
  std::map<std::string, fault_item> items_;
};

} // namespace rmq
