// The epoch file of a broker's store (docs/replication.md, "Epochs"):
// each master term, its epoch and the log offset where it began. Two
// stores compare theirs to find the end of the history they share, so a
// promoted slave and a returning old master never serve two different
// logs (RocketMQ 5's EpochFileCache). Plain C++; written atomically
// (json_file) on every change, read at start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/error.hpp"
#include "caf/expected.hpp"

namespace rmq::storage {

/// Where a store keeps its epoch file: `<store>/epochFile.json`.
std::string epoch_file_path(const std::string& store_dir);

struct epoch_entry {
  int32_t epoch = 0;
  int64_t start_offset = 0;
};

inline bool operator==(const epoch_entry& x, const epoch_entry& y) {
  return x.epoch == y.epoch && x.start_offset == y.start_offset;
}

class epoch_file {
public:
  /// The entries at `path`; none when there is no file. A file that does
  /// not read, or whose entries do not grow, is an error: guessing there
  /// could let two histories pass for one.
  static caf::expected<epoch_file> load(std::string path);

  /// A new term: `epoch` above the last, beginning at `start_offset`, not
  /// before the last term began. Saved before it returns.
  caf::error append(int32_t epoch, int64_t start_offset);

  /// The log was cut at `offset`: terms that began after it are
  /// forgotten (a term that began exactly there stays: it holds nothing
  /// yet). Saved before it returns.
  caf::error truncate(int64_t offset);

  const std::vector<epoch_entry>& entries() const {
    return entries_;
  }

  /// The last term's epoch; 0 before the first.
  int32_t last_epoch() const {
    return entries_.empty() ? 0 : entries_.back().epoch;
  }

private:
  explicit epoch_file(std::string path);

  caf::error save() const;

  std::string path_;
  std::vector<epoch_entry> entries_;
};

/// Whether `entries` grow: epochs strictly, start offsets never back.
bool well_ordered(const std::vector<epoch_entry>& entries);

/// The end of the history two logs share: for the latest epoch both have,
/// begun at the same offset in both, the smaller of its two ends (a term
/// ends where the next begins, the last one at its log's end). -1 when
/// they share none (RocketMQ EpochFileCache#findConsistentPoint).
int64_t consistent_point(const std::vector<epoch_entry>& mine, int64_t my_end,
                         const std::vector<epoch_entry>& theirs,
                         int64_t their_end);

} // namespace rmq::storage
