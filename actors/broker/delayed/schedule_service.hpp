// The delay-level schedule service (RocketMQ ScheduleMessageService): one
// actor for all levels. Reads the heads of the 18 queues of
// SCHEDULE_TOPIC_XXXX through the queue service, re-puts each due message to
// its real topic and queue through the commit-log writer, and keeps the
// next offset of each level in `<store>/config/delayOffset.json`. Wakes by
// the actor clock for the earliest due head and on the queue service's arrival
// notes; never polls. Writes its file synchronously: spawn it detached.
// See docs/broker.md, "Schedule service".
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/schedule.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/delay_levels.hpp"

namespace rmq {

struct schedule_service_options {
  /// The offsets file (`delay_offsets_json_path(store_root)`).
  std::string offsets_path;
  /// messageDelayLevel; must be the store's (store_config), whose
  /// tags codes use the same table.
  std::string message_delay_level = default_message_delay_level;
  /// The store's (deliver times are store timestamps plus a delay).
  rmq::wall_clock wall_clock;
  /// Records read and re-put per level in one pass.
  int32_t batch = 32;
  /// Back-off after a failed read, check, put or save: doubles from
  /// `min_backoff` (RocketMQ DELAY_FOR_A_WHILE) to `max_backoff`
  /// (DELAY_FOR_A_PERIOD).
  caf::timespan min_backoff = std::chrono::milliseconds{100};
  caf::timespan max_backoff = std::chrono::seconds{10};
  /// How long the queue service and the commit log may take.
  caf::timespan request_timeout = std::chrono::seconds{10};
  /// Arrival notes come after every dispatch, for any topic: the idle
  /// levels look for new messages at most this long after a note (once
  /// for all notes in between), not once per note. The shortest delay
  /// (1 s) is far longer, so no message is delivered late for it.
  caf::timespan arrival_check_delay = std::chrono::milliseconds{100};
  /// A slave's service delivers nothing: its master does, and the master's
  /// level offsets come with the metadata (`sync_atom`), so a promoted
  /// slave goes on from there (checking, as after a start).
  bool slave = false;
};

/// One level's queue and where delivery stands.
struct schedule_level {
  int32_t level = 0;
  int64_t delay_ms = 0;
  /// Next queue offset to deliver; everything below is delivered.
  int64_t offset = 0;
  int64_t max_offset = 0;
  /// Delivered records above `offset` (a batch whose put failed in the
  /// middle): skipped when the pass is retried. Always within one batch
  /// of `offset`.
  std::set<int64_t> delivered_ahead;
  /// A read, check or put of this level is in flight.
  bool busy = false;
  /// Something arrived during the pass: read again when it ends.
  bool again = false;
  /// Check the real queue before re-putting (after a start, until a pass
  /// finds nothing delivered): the last pass before a crash may have put
  /// messages whose offset never reached the file.
  bool verifying = true;
  /// Deliver time (wall ms) of the first undelivered record read, -1 if
  /// none is known (the queue is drained or not read yet).
  int64_t head_due = -1;
  /// Due, undelivered records seen by the last read (at most `batch`).
  int64_t due = 0;
  /// Generation of the armed wake-up, 0: none.
  uint64_t timer = 0;
  caf::timespan backoff{0};
  int64_t delivered = 0;
  /// Found already in the real queue while verifying.
  int64_t verified = 0;
  /// Records that cannot be rebuilt (no REAL_TOPIC, bad REAL_QID) or read
  /// (damaged): skipped.
  int64_t dropped = 0;
  int64_t failures = 0;
};

struct schedule_service_state {
  schedule_service_options options;
  queue_service_actor queue_service;
  commit_log_writer_actor commit_log;
  delay_table delays;
  std::vector<schedule_level> levels;
  uint64_t next_timer = 1;
  /// A look after arrival notes is armed.
  bool arrival_check_armed = false;
  /// The file lags behind the offsets in memory (its last save failed):
  /// no level starts a pass before it is saved.
  bool dirty = false;
  int64_t saves = 0;
  int64_t save_failures = 0;
  int64_t arrivals = 0;

  int64_t now_ms() const;

  /// Per-level progress for `get_atom`.
  schedule_progress progress() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Returns `<store_root>/config/delayOffset.json`.
std::string delay_offsets_json_path(const std::string& store_root);

/// Loads the offsets file, then reads every level. The broker node
/// subscribes it to the queue service's arrival notes. Quits with
/// invalid_parameter for a bad messageDelayLevel, or io_error if the file
/// exists but cannot be read (starting from 0 would deliver again).
schedule_service_actor::behavior_type schedule_service(
  schedule_service_actor::stateful_pointer<schedule_service_state> self,
  schedule_service_options options, queue_service_actor queue_service,
  commit_log_writer_actor commit_log);

} // namespace rmq
