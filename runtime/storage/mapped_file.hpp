// One fixed-size file mapped into memory (RocketMQ MappedFile): commit-log
// segments, consume-queue files and index files. Space is allocated when the
// file is created, so a full disk is an error here and never a SIGBUS later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "runtime/storage/store_config.hpp"

namespace rmq::storage {

/// syncfs on the file system holding `dir`: every file's written data and
/// metadata there is durable when it returns (one journal commit).
caf::error sync_file_system(const std::string& dir);

class mapped_file {
public:
  /// Opens or creates `path` with exactly `size` bytes (a shorter file, e.g.
  /// cut by a crash, is extended with zeros) and maps it.
  static caf::expected<std::shared_ptr<mapped_file>>
  open(const std::string& path, size_t size, int64_t base_offset,
       std::shared_ptr<fault_injection> faults = nullptr);

  ~mapped_file();

  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;

  char* data() const {
    return data_;
  }

  size_t size() const {
    return size_;
  }

  /// Offset of the first byte in the whole log (the file name).
  int64_t base_offset() const {
    return base_offset_;
  }

  const std::string& path() const {
    return path_;
  }

  /// fdatasync: makes every write to the mapping durable. Thread-safe.
  caf::error sync();

  /// Makes the writes to [from, to) durable, and only those (msync, the
  /// ranged fdatasync: zeros warmed ahead of a writer stay unwritten).
  /// First it drops this process's page-table entries of the whole pages
  /// in the range, which no writer touches again: write-back then finds
  /// no writable mapping of them to clean, where it sent one TLB-shootdown
  /// IPI per page (docs/storage.md, "Flush modes"). A reader of those bytes
  /// faults them back in, read-only. Thread-safe.
  caf::error sync_written(size_t from, size_t to);

  /// Writes zeros into [from, from + len) with pwrite, so those blocks are
  /// written extents (not merely allocated) once synced. Both this and
  /// `sync_zeros` use a second descriptor of their own: a write-back error
  /// they meet is still reported to `sync` (Linux reports such an error
  /// once per open file description), so a failed warm step never hides a
  /// failed flush. One thread at a time; not counted by fault injection.
  caf::error write_zeros(size_t from, size_t len);

  /// fdatasync on the zeroing descriptor.
  caf::error sync_zeros();

  /// Readahead off (MADV_RANDOM) while this is the segment being written,
  /// back on after. Readahead on the writer's faults past the written end
  /// would read the preallocated blocks ahead (zeroing them, the slow way,
  /// read_ahead_kb at a time), and on the warm actor's as well.
  void advise_writing(bool writing);

  /// Faults [from, from + len) into the mapping writable
  /// (MADV_POPULATE_WRITE), then writes each whole page of it back with its
  /// own first byte, so writes there later take no page fault (and the
  /// kernel's zeroing of a fresh page happens on the caller's thread). The
  /// store is for VMs with shadow paging (the 2026-12-05 VM), where a
  /// populated page still costs a hypervisor exit on its first user-mode
  /// write, ~0.8 us (docs/storage.md, "Warming"). Only where nobody else
  /// writes meanwhile; a partial first page is left alone.
  caf::error populate(size_t from, size_t len);

  /// Zeroes [from, size) cheaply (punch a hole, then re-allocate), so stale
  /// bytes after a cut can never be read as records.
  caf::error zero_tail(size_t from);

  /// Unlinks the file; the mapping stays valid until the last owner drops it.
  void remove();

  /// Modification time in ms since the epoch (for retention).
  int64_t mtime_ms() const;

private:
  mapped_file() = default;

  std::string path_;
  int fd_ = -1;
  int zero_fd_ = -1; // for write_zeros, opened on first use
  char* data_ = nullptr;
  size_t size_ = 0;
  int64_t base_offset_ = 0;
  std::shared_ptr<fault_injection> faults_;
};

using mapped_file_ptr = std::shared_ptr<mapped_file>;

/// "00000000000000001024": the 20-digit zero-padded offset.
std::string offset_file_name(int64_t offset);

/// The offsets of the files in `dir` named by `offset_file_name`, sorted;
/// other names are ignored, a missing folder is empty.
std::vector<int64_t> list_offset_files(const std::string& dir);

/// Creates `dir` and its parents.
caf::error make_dirs(const std::string& dir);

} // namespace rmq::storage
