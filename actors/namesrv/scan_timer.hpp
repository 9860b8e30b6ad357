// Every scan interval (RocketMQ scanNotActiveBrokerInterval, 5 s) asks the
// liveness table for brokers whose heartbeat timed out and hands them to the
// unregistration batcher as one batch. The tables stay timer-free. A scan
// that fails (the table answers late) is logged and retried on the next
// tick; the timer never stops for it.
#pragma once

#include <chrono>
#include <cstdint>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/broker_live_table.hpp"
#include "actors/namesrv/unregistration_batcher.hpp"

namespace rmq {

using scan_timer_actor = dumpable_actor::extend<
  caf::reacts_to<caf::tick_atom>,
  // A tick armed with this generation; older ones are stale and dropped.
  caf::reacts_to<caf::tick_atom, uint64_t>,
  // A new interval (UPDATE_NAMESRV_CONFIG): counts from now.
  caf::replies_to<caf::put_atom, caf::timespan>::with<caf::ok_atom>>;

struct scan_timer_state {
  caf::timespan interval{0};
  broker_live_table_actor live;
  unregistration_batcher_actor batcher;
  uint64_t scans = 0;
  uint64_t expired = 0;
  /// Generation of the one armed tick.
  uint64_t generation = 0;
  /// Scans that timed out or failed.
  uint64_t failed_scans = 0;
  /// A scan is awaiting its answer: ticks skip theirs meanwhile, so a slow
  /// table is not buried under scans.
  bool scan_in_flight = false;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// How long a scan may take before it counts as failed.
constexpr auto scan_timeout = std::chrono::seconds{10};

/// A zero interval turns scanning off.
scan_timer_actor::behavior_type
scan_timer(scan_timer_actor::stateful_pointer<scan_timer_state> self,
           caf::timespan interval, broker_live_table_actor live,
           unregistration_batcher_actor batcher);

} // namespace rmq
