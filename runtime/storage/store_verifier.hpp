// The offline check of a stopped store (rmq-admin verifyStore): every
// commit-log segment, every record, every consume-queue unit, every index
// file and the checkpoint, read-only and without actors. Damage is judged as recovery
// judges it (segment_scan.hpp), so the report says what recovery would do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/expected.hpp"

#include "runtime/storage/store_config.hpp"

namespace rmq::storage {

/// One problem `verify_store` found.
struct store_problem {
  /// Path of the file below the store folder ("commitlog/000…0").
  std::string file;
  /// Commit-log offset, or queue offset for a consume-queue unit.
  int64_t offset = 0;
  /// Damaged bytes (commit log), 0 where it does not apply.
  int64_t length = 0;
  /// What is wrong ("corrupt range, body CRC mismatch").
  std::string what;
};

/// What `verify_store` read and found.
struct store_report {
  size_t segments = 0;
  int64_t records = 0;
  /// End of the last valid record: where recovery would cut.
  int64_t log_end = 0;
  size_t queues = 0;
  int64_t units = 0;
  /// The abort marker is there: the store was not closed cleanly.
  bool crashed = false;
  std::vector<store_problem> problems;

  bool ok() const {
    return problems.empty();
  }
};

/// Checks the store in `dir` without writing to it (but for its `lock`
/// file). An error when `dir` is no store folder at all, or when a
/// process has it open (store_lock).
/// Index files are read with `index_slots` and `index_entries` (the
/// broker's settings); a file of another size is not read.
caf::expected<store_report>
verify_store(const std::string& dir,
             uint32_t index_slots = store_config{}.index_slots,
             uint32_t index_entries = store_config{}.index_entries);

/// The report as text: one line per problem with its offsets, then a
/// summary line ("store OK" or "store DAMAGED").
std::string format_report(const store_report& report);

} // namespace rmq::storage
