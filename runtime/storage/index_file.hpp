// One hash index file (RocketMQ IndexFile): a 40-byte header, a table of
// hash slots, and entries chained newest first. Keys are "topic#key".
// Owned by one thread (the queue service).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "runtime/storage/mapped_file.hpp"

namespace rmq::storage {

class index_file {
public:
  static caf::expected<std::unique_ptr<index_file>>
  open(const std::string& path, uint32_t slots, uint32_t entries, int64_t base,
       std::shared_ptr<fault_injection> faults);

  /// Adds `key` -> `phys_offset`; false when the file is full.
  bool put(std::string_view key, int64_t phys_offset, int64_t store_ts);

  /// Appends the phys offsets stored under `key` with a store time in
  /// [begin, end], newest first, until `out` holds `max` offsets. Hash
  /// collisions are possible: callers check the record.
  void query(std::string_view key, int64_t begin, int64_t end, size_t max,
             std::vector<int64_t>& out) const;

  bool full() const;

  /// Entries still free in this file.
  uint32_t room() const;

  int64_t begin_timestamp() const;
  int64_t end_timestamp() const;
  int64_t end_phys_offset() const;
  int32_t index_count() const;

  /// Why the file is not what `put` writes, or "" when it is: the count,
  /// every slot's chain (backwards only, each entry reached once, its hash
  /// of that slot, its offset inside [0, `log_extent`)). Reads the whole
  /// file.
  std::string check(int64_t log_extent) const;

  /// Its file, for the checkpoint's fdatasync.
  const mapped_file_ptr& file() const {
    return file_;
  }

  void remove() {
    file_->remove();
  }

private:
  index_file() = default;

  char* slot(uint32_t i) const;
  char* entry(uint32_t i) const;

  mapped_file_ptr file_;
  uint32_t slots_ = 0;
  uint32_t entries_ = 0;
};

/// index_file::check of the `size` bytes of an index file with `slots`
/// slots and `entries` entries (verifyStore reads them without mapping
/// them for writing).
std::string check_index_bytes(const char* data, size_t size, uint32_t slots,
                              uint32_t entries, int64_t log_extent);

/// abs(Java hashCode) of the key, as RocketMQ's IndexFile#indexKeyHashMethod.
int32_t index_key_hash(std::string_view key);

} // namespace rmq::storage
