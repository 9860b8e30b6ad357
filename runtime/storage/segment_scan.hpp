// Verifying one commit-log segment record by record, and finding the next
// valid record after a damaged one. Shared by recovery (commit_log::recover)
// and the offline check (store_verifier), so both judge damage alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/message/message_record.hpp"

namespace rmq::storage {

/// One damaged range of the commit log.
struct corruption {
  /// Base offset of the segment holding it.
  int64_t segment = 0;
  /// Log offset of the first damaged byte.
  int64_t offset = 0;
  /// Bytes up to the next valid record, blank marker or segment end.
  int64_t length = 0;
  /// Why the bytes at `offset` are no record ("body CRC mismatch").
  std::string reason;
};

/// What `scan_segment` found in one segment.
struct segment_scan {
  /// Valid records found.
  int64_t records = 0;
  /// Position after the last valid record; the segment size if the segment
  /// ends with a valid blank marker.
  size_t valid_end = 0;
  /// The segment ends with a valid blank marker.
  bool blank = false;
  /// Damaged ranges with a valid record or the blank marker after them.
  std::vector<corruption> damage;
  /// Non-zero bytes after `valid_end` that no valid record follows in this
  /// segment: a torn tail if nothing valid follows in later segments.
  std::optional<corruption> trailing;
};

/// Called for each valid record, and for each damaged record whose header
/// still decodes (body CRC mismatch) with `intact == false`.
using scan_handler = std::function<void(const record_view& rec,
                                        int64_t phys_offset, bool intact)>;

/// Called for each damaged range as the scan finds it, in log order.
using damage_handler = std::function<void(const corruption& bad)>;

/// Verifies the segment `data[0, size)` that starts at log offset `base`.
/// On a damaged record it resynchronises at the next valid record. Stops at
/// zeros where a record would start (the end of the data) unless
/// `past_zeros`, which looks for valid records after them too (for segments
/// that must end with a blank marker). `on_damage` may be empty.
segment_scan scan_segment(const char* data, size_t size, int64_t base,
                          bool check_crc, bool past_zeros,
                          const scan_handler& f,
                          const damage_handler& on_damage = {});

/// How the scans of consecutive segments, oldest first, judge the log.
struct log_verdict {
  /// Index of the last scan with a valid record or blank marker, or the
  /// number of scans if none has one.
  size_t last_valid = 0;
  /// Damaged ranges that a valid record follows somewhere in the log.
  std::vector<corruption> corruptions;
  /// Start of the torn tail (damage no valid record follows), or -1.
  int64_t torn_tail_offset = -1;
};

/// Only damage after the last valid record of the whole log is a torn tail;
/// all other damage is corruption, to keep and report.
log_verdict judge_log(const std::vector<segment_scan>& scans);

/// Returns the position of the first valid record (magic, lengths, body CRC,
/// phys offset) or valid blank marker at or after `from`, else `size`.
size_t find_next_record(const char* data, size_t size, int64_t base,
                        size_t from);

} // namespace rmq::storage
