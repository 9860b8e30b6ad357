// An ASYNC_MASTER's slave lag in time, as the replication bench measures
// it: a thread of its own reads the master's dump every few ms while a load
// runs (its log end and the slave's acknowledged offset, both from the
// ha_service at one moment), and each sample's lag is how long before it
// the master's end first reached what the slave had acknowledged.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "caf/actor_system.hpp"

#include "apps/rmq-bench/load_generator.hpp"
#include "messages/broker/broker.hpp"

namespace rmq::bench {

struct lag_sample {
  /// When the dump was asked for.
  clock_type::time_point at;
  /// The master's log end and slave 1's acknowledged offset.
  int64_t master_end = -1;
  int64_t acked = -1;
  /// The dump's round trip, µs.
  double rtt_us = 0;
};

/// Reads `master`'s dump every `interval` (or back to back when a dump
/// takes longer) on a thread of its own while `during` runs on this one.
std::vector<lag_sample> sample_lag(caf::actor_system& sys,
                                   const broker_actor& master,
                                   std::chrono::milliseconds interval,
                                   const std::function<void()>& during);

/// Each sample's lag in ms, sorted: 0 when the slave had the master's end,
/// else the sample's time minus when the master's end reached the slave's
/// acknowledged offset (interpolated between the two samples around that
/// moment). Samples whose offset the master had passed before the first
/// sample are left out (`unknown` counts them).
std::vector<double> lag_ms(const std::vector<lag_sample>& samples,
                           size_t* unknown = nullptr);

} // namespace rmq::bench
