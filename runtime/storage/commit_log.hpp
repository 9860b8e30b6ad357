// The commit log: one append-only log of records split into fixed-size
// segment files named by their start offset (RocketMQ CommitLog +
// MappedFileQueue).
//
// Threads: one writer appends, rolls, truncates and deletes segments; any
// thread may read below `write_offset()` and call `sync`. The segment list is
// guarded by a mutex; record bytes below the published write offset never
// change.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "runtime/message/message_record.hpp"
#include "runtime/storage/mapped_file.hpp"
#include "runtime/storage/segment_scan.hpp"
#include "runtime/storage/store_config.hpp"

namespace rmq::storage {

/// What `commit_log::recover` found and did.
struct log_recovery {
  /// End of the last valid record: the new write offset.
  int64_t end = 0;
  /// Damaged ranges with valid records after them: kept, skipped, reported.
  std::vector<corruption> corruptions;
  /// Start of the cut torn tail (bytes no valid record follows), or -1.
  int64_t torn_tail_offset = -1;
  /// Segments after the last valid record, deleted with the tail.
  size_t dropped_segments = 0;
};

class commit_log {
public:
  using record_handler
    = std::function<void(const record_view& rec, int64_t phys_offset)>;

  explicit commit_log(const store_config& cfg);

  /// Maps every segment file of `<dir>/commitlog`. Missing segments
  /// between two stored ones are kept as `holes()`; segments that do not
  /// follow at segment-size steps make it fail.
  caf::error load();

  /// Scans from the segment holding `from`, verifying each record, and
  /// calls `f` for each one (see `scan_handler`) and `on_damage` for each
  /// damaged range. A damaged range with a
  /// valid record after it anywhere in the log is skipped and reported;
  /// only the torn tail after the last valid record of the log is cut (rest
  /// of that segment zeroed, later segments deleted).
  caf::expected<log_recovery> recover(int64_t from, bool check_crc,
                                      const scan_handler& f,
                                      const damage_handler& on_damage);

  /// Calls `f` for each record starting in [from, to), read-only and
  /// without CRC checks; skips damaged ranges. `from` must be a record
  /// start.
  void scan(int64_t from, int64_t to, const record_handler& f) const;

  /// Base of the last segment whose first record was stored before `ts`,
  /// else of the first segment: no earlier segment holds a record stored at
  /// or after `ts` (store timestamps grow along the log).
  int64_t first_segment_since(int64_t ts) const;

  /// Appends an encoded record of `size` bytes for `msg`; fills in
  /// `stamp.phys_offset`. Rolls to a new segment when the record plus the
  /// blank marker does not fit. Writer only.
  caf::error append(const store_message& msg, size_t size, record_stamp& stamp);

  /// fdatasync of every segment holding bytes in [flushed, up_to); returns
  /// the new flushed offset. Any thread.
  caf::expected<int64_t> sync(int64_t up_to);

  /// Returns a pointer to the bytes at `offset` and how many bytes of its
  /// segment follow; `hold` keeps the segment mapped. Null if not stored.
  const char* at(int64_t offset, mapped_file_ptr& hold,
                 size_t& available) const;

  /// Copies the record at `offset` into `out` (appends) after verifying
  /// its header, and its body CRC if `check_crc`; `corrupt_data` names the
  /// damage.
  caf::error read_record(int64_t offset, std::string& out,
                         bool check_crc) const;

  /// Deletes segments older than `max_age_ms` (or the oldest `force` ones),
  /// never the last one and none ending above `safe_offset`. Writer only.
  size_t delete_expired(int64_t now_ms, int64_t max_age_ms, size_t force,
                        int64_t safe_offset);

  int64_t write_offset() const {
    return write_offset_.load(std::memory_order_acquire);
  }

  int64_t flushed_offset() const {
    return flushed_offset_.load(std::memory_order_acquire);
  }

  /// Warming (any thread but the writer's; one at a time): writes zeros
  /// into the current segment from the write offset (or the warm end) up
  /// to `write_offset() + ahead`, `chunk` bytes at a time, then, when
  /// `durable`, syncs them once; otherwise maps each chunk in
  /// (`mapped_file::populate`). Answers whether it warmed anything. The
  /// writer never writes into the step under way: an append reaching past
  /// the warm end waits for it.
  caf::expected<bool> warm(size_t ahead, size_t chunk, bool durable);

  /// Whether less than half of `ahead` bytes are warm ahead of the writer
  /// (and the current segment has more to warm).
  bool needs_warm(size_t ahead) const;

  /// One warm request in flight: the writer claims it, the warm actor
  /// releases it when it is done.
  bool claim_warm() {
    return !warm_claimed_.exchange(true, std::memory_order_acq_rel);
  }

  void release_warm() {
    warm_claimed_.store(false, std::memory_order_release);
  }

  /// End of the zero-written (sync flush) or populated (async flush) range
  /// ahead of the writer (for dumps).
  int64_t warm_end() const {
    return warm_end_.load(std::memory_order_acquire);
  }

  /// First offset still stored (0 for an empty log).
  int64_t min_offset() const;

  size_t segment_count() const;

  /// Base offset of the last segment (0 without segments).
  int64_t last_segment_base() const;

  // -- replication (docs/replication.md) --------------------------------------

  /// The log's bytes from `from`, a record start: whole records, at most
  /// `max_bytes` (at least one record), within the segment holding
  /// `from`, never past the write offset; a segment's blank marker comes
  /// with the rest of its segment. Empty at the write offset. What a
  /// master sends its slave: the slave appends the same bytes at the same
  /// offsets.
  caf::expected<std::string> read_chunk(int64_t from, size_t max_bytes) const;

  /// A slave's append of its master's bytes at `from`, which must be the
  /// write offset (a gap or an overlap is refused). Every record must be
  /// whole, with its body CRC right and its own phys offset its place, and
  /// a blank marker must fill its segment to the end; otherwise nothing is
  /// written and the error says where and why.
  caf::error append_chunk(int64_t from, std::string_view bytes);

  /// Cuts the log at `offset`, where a record or a blank marker begins (a
  /// slave that followed another term than its new master's, cut to
  /// where the two histories part): the rest of that segment is zeroed
  /// and synced, later segments are deleted.
  caf::error truncate(int64_t offset);

  /// Ranges of missing segment files between stored ones, found by `load`.
  const std::vector<corruption>& holes() const {
    return holes_;
  }

  const std::string& dir() const {
    return dir_;
  }

private:
  mapped_file_ptr find(int64_t offset) const;

  caf::error roll(int64_t base);

  caf::error append_locked(const store_message& msg, size_t size,
                           record_stamp& stamp);

  store_config cfg_;
  std::string dir_;
  mutable std::mutex mtx_;
  std::vector<mapped_file_ptr> segments_; // sorted by base offset
  std::vector<corruption> holes_;         // missing segments, from load
  mapped_file_ptr current_;               // writer's cached last segment
  std::atomic<int64_t> write_offset_{0};
  std::atomic<int64_t> flushed_offset_{0};
  std::mutex sync_mtx_; // one sync at a time
  // Held while zeros are written (by `warm`) and by an append that does not
  // stay below `warm_end_`: the two never touch the same bytes.
  std::mutex warm_mtx_;
  // Offset below which the current segment ahead of the writer holds
  // synced zeros; the writer may append below it without the lock.
  std::atomic<int64_t> warm_end_{0};
  std::atomic<bool> warm_claimed_{false};
};

} // namespace rmq::storage
