// The consume queue of one topic and queue id: fixed 20-byte units
// `phys offset | size | tags code`, logical offset = unit index (RocketMQ
// ConsumeQueue). Built from the commit log by the queue service, so it can
// always be rebuilt. Owned by one thread (the queue service).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/error.hpp"

#include "runtime/storage/mapped_file.hpp"
#include "runtime/storage/store_config.hpp"

namespace rmq::storage {

struct cq_unit {
  int64_t phys_offset = 0;
  int32_t size = 0;
  int64_t tags_code = 0;

  /// Filler before a queue's first real unit (RocketMQ's blank units).
  bool blank() const {
    return size == INT32_MAX;
  }

  /// The tags code of a unit that holds the place of a record found
  /// damaged (its range in the log): a read of it answers corrupt_data,
  /// also after restarts that no longer scan that part of the log.
  static constexpr int64_t damaged_tags = INT64_MIN;

  bool damaged() const {
    return tags_code == damaged_tags && !blank();
  }
};

/// One folder of the consume-queue tree, `<root>/<topic>/<queue id>`.
struct consume_queue_dir {
  std::string topic;
  int32_t queue_id = 0;
};

/// Lists the queue folders under `root`, skipping names that are not queue
/// ids (recovery and verifyStore walk the tree the same way).
std::vector<consume_queue_dir> list_consume_queue_dirs(const std::string& root);

class consume_queue {
public:
  consume_queue(const store_config& cfg, std::string topic, int32_t queue_id);

  /// Maps existing files and finds the last written unit.
  caf::error load();

  /// Stores the unit for `queue_offset`. Idempotent: an offset below the
  /// current max is already there and skipped; a gap is filled with blanks.
  caf::error put(int64_t queue_offset, const cq_unit& unit);

  /// Replaces the unit at `queue_offset` in [min_offset, max_offset): one
  /// that recovery found naming no record of its own.
  void overwrite(int64_t queue_offset, const cq_unit& unit);

  /// Reads a unit; false outside [min_offset, max_offset).
  /// Whether the unit at `queue_offset` lies in a file already open, so
  /// that `put` there creates none.
  bool has_file_for(int64_t queue_offset) const;

  bool get(int64_t queue_offset, cq_unit& out) const;

  /// Removes units whose record ends above `phys_end` (the log was cut).
  void truncate_dirty(int64_t phys_end);

  /// Forgets units pointing below `phys_min` (retention deleted them) and
  /// deletes files that hold only such units.
  void correct_min_offset(int64_t phys_min);

  /// Why the units are not what the queue service writes, or "" when they
  /// are: each real unit's record inside [0, `log_extent`) and after the
  /// record of the unit before it, nothing written past the end. Reads
  /// every unit (20 bytes a message).
  std::string check(int64_t log_extent) const;

  /// Deletes every file: the queue is empty, to be built again.
  void destroy();

  /// The files written since the last call, appended to `out`; counts
  /// them as synced (the caller syncs them, without the store's lock).
  void take_unsynced(std::vector<mapped_file_ptr>& out);

  /// Whether units were written since the last sync.
  bool dirty() const {
    return synced_offset_ < max_offset_ && !files_.empty();
  }

  /// Everything written counts as synced (the caller synced the whole
  /// file system).
  void mark_synced() {
    synced_offset_ = max_offset_;
  }

  int64_t min_offset() const {
    return min_offset_;
  }

  int64_t max_offset() const {
    return max_offset_;
  }

  /// End (phys offset + size) of the record of the last unit, or 0.
  int64_t max_phys_end() const;

  const std::string& topic() const {
    return topic_;
  }

  int32_t queue_id() const {
    return queue_id_;
  }

private:
  size_t file_bytes() const {
    return cfg_.cq_units_per_file * 20;
  }

  char* unit_ptr(int64_t queue_offset) const;

  caf::error ensure_file(int64_t queue_offset);

  store_config cfg_;
  std::string topic_;
  int32_t queue_id_;
  std::string dir_;
  std::vector<mapped_file_ptr> files_; // contiguous, sorted
  int64_t min_offset_ = 0;
  int64_t max_offset_ = 0;
  int64_t synced_offset_ = 0;
};

} // namespace rmq::storage
