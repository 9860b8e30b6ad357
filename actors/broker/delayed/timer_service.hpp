// The timer service (RocketMQ 5 TimerMessageStore's enqueue and dequeue
// services): one actor per broker. Enqueues the units of the timer topic's
// queue into the on-disk wheel (runtime/storage/timer_store) on the
// queue service's arrival notes; at each due slot reads its chain, re-puts
// each message to its real topic and queue through the commit-log writer,
// then moves the read time on and writes the checkpoint. Wakes by the
// actor clock for the next due slot; never polls. Does file I/O: spawn it
// detached. See docs/timer.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/timer.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/timer_message.hpp"
#include "runtime/storage/timer_store.hpp"

namespace rmq {

struct timer_service_options {
  /// The timer's folder (`timer_store_dir(store_root)`).
  std::string dir;
  /// timerMaxDelaySec and timerPrecisionMs; must be the send processor's.
  /// The wheel covers twice the maximum delay.
  timer_settings timer;
  /// Timer-log entries per segment file (40 bytes each).
  int64_t log_segment_entries = 1 << 20;
  /// The store's (deliver times are wall-clock times).
  rmq::wall_clock wall_clock;
  /// Units read per enqueue request.
  int32_t enqueue_batch = 256;
  /// Messages of a slot read and re-put per pass.
  int32_t fire_batch = 64;
  /// Back-off after a failed read, check, put or checkpoint: doubles from
  /// `min_backoff` to `max_backoff`.
  caf::timespan min_backoff = std::chrono::milliseconds{100};
  caf::timespan max_backoff = std::chrono::seconds{10};
  /// How long the queue service and the commit log may take.
  caf::timespan request_timeout = std::chrono::seconds{10};
  /// timerFlushIntervalMs: the checkpoint is written at most this often
  /// (wall ms). A crash re-fires what fired since, and the check by
  /// UNIQ_KEY after the start keeps it from being delivered twice.
  int64_t flush_interval_ms = 1000;
  /// A slave's service fires nothing: it enqueues its copy of the timer
  /// topic and passes the slots its master has fired (`sync_atom` brings
  /// the master's read time), so a promoted slave fires from there on
  /// (checking, as after a start).
  bool slave = false;
};

struct timer_service_state {
  timer_service_options options;
  queue_service_actor queue_service;
  commit_log_writer_actor commit_log;
  std::unique_ptr<storage::timer_store> store;

  // -- enqueue --
  bool enqueue_busy = false;
  bool enqueue_again = false;
  /// An entry waits for the read time to come within a wheel of it.
  bool enqueue_blocked = false;
  /// The timer queue's max offset as last read.
  int64_t queue_max = 0;
  uint64_t enqueue_gen = 0;

  // -- dequeue --
  /// A slave's: the master's read time, as last synced.
  int64_t master_read_ms = 0;
  bool fire_busy = false;
  /// Queue offsets of the current slot already delivered (a pass failed
  /// in the middle); cleared when the slot is done.
  std::set<int64_t> delivered_in_slot;
  /// Check the real queue before re-putting (after a start, until a pass
  /// finds nothing delivered).
  bool verifying = true;
  /// The armed wake-up: its generation and wall time (-1: none).
  uint64_t fire_gen = 0;
  int64_t armed_ms = -1;
  caf::timespan backoff{0};

  // -- statistics --
  int64_t enqueued = 0;
  int64_t delivered = 0;
  int64_t verified = 0;
  int64_t dropped = 0;
  int64_t failures = 0;
  int64_t arrivals = 0;
  int64_t checkpoints = 0;
  /// Progress not in the checkpoint yet, and when it was last written.
  bool dirty = false;
  int64_t last_flush_ms = 0;
  bool flush_armed = false;
  /// Latest lateness of a fired slot (fire time - slot time), ms.
  int64_t last_lateness_ms = 0;
  int64_t max_lateness_ms = 0;

  ~timer_service_state();

  int64_t now_ms() const;

  timer_progress progress() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Returns `<store_root>/timer`.
std::string timer_store_dir(const std::string& store_root);

/// Opens the timer store, then enqueues and fires what is due. The broker
/// node subscribes it to the queue service's arrival notes for the timer
/// topic. Quits with the store's error if it cannot open (io_error,
/// corrupt_data, invalid_parameter for a wheel of another size).
timer_service_actor::behavior_type
timer_service(timer_service_actor::stateful_pointer<timer_service_state> self,
              timer_service_options options, queue_service_actor queue_service,
              commit_log_writer_actor commit_log);

} // namespace rmq
