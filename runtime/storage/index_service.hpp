// The index by message key and unique id across all index files (RocketMQ
// IndexService): new files when one fills up, lookups newest first. Owned by
// one thread (the queue service).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "caf/error.hpp"

#include "runtime/message/message_record.hpp"
#include "runtime/storage/index_file.hpp"
#include "runtime/storage/store_config.hpp"

namespace rmq::storage {

class index_service {
public:
  explicit index_service(const store_config& cfg);

  caf::error load();

  /// Indexes UNIQ_KEY and every KEYS token of a record as "topic#key".
  /// Idempotent: records at or below the last indexed offset are skipped.
  /// Whether `put(rec, ...)` fits in the current file (or indexes
  /// nothing), so that it opens no new one (blocking file creation; see
  /// message_store::dispatch_without_files).
  bool has_room_for(const record_view& rec) const;

  caf::error put(const record_view& rec, int64_t phys_offset);

  /// Phys offsets stored under "topic#key", newest first.
  std::vector<int64_t> query(const std::string& topic, const std::string& key,
                             int64_t begin, int64_t end, size_t max) const;

  /// The first problem index_file::check finds, naming the file, or "".
  std::string check(int64_t log_extent) const;

  /// Deletes every index file: the index is empty, to be built again.
  void destroy();

  /// Deletes whole files whose entries all point below `phys_min`.
  void delete_below(int64_t phys_min);

  /// The files written since the last call, appended to `out`; counts
  /// them as synced (the caller syncs them, without the store's lock).
  void take_unsynced(std::vector<mapped_file_ptr>& out);

  size_t file_count() const {
    return files_.size();
  }

private:
  caf::error put_key(std::string_view topic, std::string_view key,
                     int64_t phys_offset, int64_t store_ts);

  store_config cfg_;
  std::string dir_;
  std::vector<std::unique_ptr<index_file>> files_;
  int64_t last_indexed_ = -1;
  size_t dirty_from_ = SIZE_MAX; // first file with unsynced entries
  std::string key_buf_;
};

} // namespace rmq::storage
