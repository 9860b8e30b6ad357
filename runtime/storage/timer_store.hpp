// The on-disk structure of the timer (RocketMQ 5 TimerWheel + TimerLog +
// TimerCheckpoint): a timing wheel of fixed slots, one per `precision_ms`,
// in one mapped file, and an append-only timer log of fixed-size entries in
// mapped segments; the entries of one slot are chained newest first, and a
// slot holds its time, its newest entry and its count. Firing a slot reads
// only its chain. Progress (the next timer-topic queue offset to enqueue,
// the next slot time to fire, the log end that is durable) is a JSON
// checkpoint written atomically. Plain C++, no actors, one thread. See
// docs/timer.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "runtime/storage/mapped_file.hpp"

namespace rmq::storage {

struct timer_store_config {
  /// The timer's folder (`<store>/timer`): `timerwheel`, `timerlog/`,
  /// `timercheck.json`.
  std::string dir;
  /// timerPrecisionMs: the time of one slot.
  int64_t precision_ms = 1000;
  /// Slots of the wheel: twice timerMaxDelaySec (3 days) at 1 s. An entry
  /// due a whole wheel or more after the read time must wait (add answers
  /// system_busy).
  int64_t wheel_slots = 2 * 3 * 86'400;
  /// Entries per timer-log segment (40 bytes each).
  int64_t log_segment_entries = 1 << 20;
};

/// One pending timer: where its timer-topic record is.
struct timer_entry {
  /// The slot time (a multiple of the precision) it fires at.
  int64_t slot_ms = 0;
  /// Its record in the commit log.
  int64_t phys_offset = 0;
  int32_t size = 0;
  /// Its unit in the timer topic's queue 0.
  int64_t queue_offset = 0;
};

/// A copy of the progress, for dumps and brokerStatus.
struct timer_store_stats {
  int64_t read_ms = 0;
  int64_t enqueue_offset = 0;
  int64_t pending = 0;
  /// The earliest non-empty slot at or after read_ms, or -1.
  int64_t next_due_ms = -1;
  int64_t log_entries = 0;
  int64_t log_segments = 0;
  /// How the last open went: the wheel was trusted (clean close) or
  /// rebuilt from the log.
  bool rebuilt = false;
};

class timer_store {
public:
  /// Opens (or creates) the structure. A new one starts firing at
  /// `start_ms` (rounded down to the precision). After a clean close the
  /// wheel is used as it is; otherwise the log is cut to the checkpoint's
  /// durable end (a torn or unsynced tail goes: the timer topic's queue
  /// supplies it again from the checkpoint's enqueue offset) and the wheel
  /// is rebuilt from the log. io_error, corrupt_data for a checkpoint that
  /// is not ours, invalid_parameter for a config that differs from the
  /// files' (precision, slots).
  static caf::expected<std::unique_ptr<timer_store>>
  open(const timer_store_config& cfg, int64_t start_ms);

  ~timer_store();

  timer_store(const timer_store&) = delete;
  timer_store& operator=(const timer_store&) = delete;

  /// Adds `e` to its slot; an entry due before the read time goes into
  /// the read time's slot (it fires next). Its queue offset must be the
  /// enqueue offset or later (the enqueue offset moves past it).
  /// system_busy when its slot is a whole wheel or more ahead of the read
  /// time (the caller retries after firing), invalid_parameter for an
  /// offset below the enqueue offset.
  caf::error add(timer_entry e);

  /// A unit of the timer topic that is not added (not a timer record):
  /// the enqueue offset moves past it.
  void skip(int64_t queue_offset);

  /// The entries of the slot at the read time, in queue order.
  caf::expected<std::vector<timer_entry>> due() const;

  /// The slot at the read time is done: the read time moves one slot on.
  /// Removes log segments none of whose entries is pending any more.
  caf::error advance();

  /// Makes the log and the wheel durable, then writes the checkpoint.
  caf::error flush();

  /// flush, marked clean: the next open trusts the wheel.
  caf::error close();

  int64_t read_ms() const {
    return read_ms_;
  }

  int64_t enqueue_offset() const {
    return enqueue_offset_;
  }

  int64_t pending() const {
    return pending_;
  }

  int64_t precision_ms() const {
    return cfg_.precision_ms;
  }

  /// The earliest non-empty slot at or after the read time, or -1: a scan
  /// of an in-memory bitmap of the slots (one bit each, 64 KiB for the
  /// default wheel), never of the files.
  int64_t next_due_ms() const;

  timer_store_stats stats() const;

private:
  timer_store() = default;

  struct slot_view {
    int64_t time_ms = 0;
    int64_t last = -1; // newest entry's index in the log
    int32_t num = 0;
  };

  size_t slot_index(int64_t slot_ms) const;
  slot_view read_slot(size_t i) const;
  void write_slot(size_t i, const slot_view& s);
  void set_bit(size_t i, bool on);
  caf::expected<char*> entry_at(int64_t index, bool create);
  caf::expected<const char*> entry_at(int64_t index) const;
  caf::error append(const timer_entry& e, int64_t prev, int64_t& index);
  caf::error rebuild(bool fresh);
  caf::error save_checkpoint(bool clean);
  void drop_dead_segments();

  timer_store_config cfg_;
  mapped_file_ptr wheel_;
  /// Segment base entry index -> file, and the latest slot time in it.
  std::map<int64_t, mapped_file_ptr> segments_;
  std::map<int64_t, int64_t> segment_max_slot_;
  std::vector<uint64_t> bits_;
  int64_t read_ms_ = 0;
  int64_t enqueue_offset_ = 0;
  int64_t log_end_ = 0;   // entries written
  int64_t log_begin_ = 0; // first entry still kept
  int64_t pending_ = 0;
  bool rebuilt_ = false;
};

} // namespace rmq::storage
