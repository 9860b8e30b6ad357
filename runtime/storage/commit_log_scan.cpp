// Reading the commit log from end to end: recovery's verifying scan (skip
// damage, cut only the torn tail),
// the read-only scan that refills the dedup table, and where the dedup
// window starts. Split from commit_log.cpp, which appends and syncs.
#include "runtime/storage/commit_log.hpp"

#include <algorithm>

#include "runtime/common/log.hpp"

namespace rmq::storage {

namespace {

// Calls `f` for each record of `seg` that starts in [pos, limit), without
// CRC checks; skips damaged ranges, stops at the end of the data.
void walk(const mapped_file& seg, size_t pos, size_t limit,
          const commit_log::record_handler& f) {
  while (pos < limit) {
    record_view rec;
    auto st = decode_record(seg.data() + pos, seg.size() - pos, rec, false);
    auto phys = seg.base_offset() + static_cast<int64_t>(pos);
    if (st == decode_status::ok && rec.phys_offset == phys) {
      f(rec, phys);
      pos += static_cast<size_t>(rec.total_size);
    } else if (st == decode_status::corrupt || st == decode_status::ok) {
      // Damaged, or a record whose phys offset field is not its place (a
      // flipped header byte): skipped like recovery skips it, the rest of
      // the segment still walked.
      pos = find_next_record(seg.data(), seg.size(), seg.base_offset(),
                             pos + 1);
    } else {
      return; // blank or end of data
    }
  }
}

} // namespace

caf::expected<log_recovery>
commit_log::recover(int64_t from, bool check_crc, const scan_handler& f,
                    const damage_handler& on_damage) {
  std::vector<mapped_file_ptr> segs;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    segs = segments_;
  }
  log_recovery res;
  if (segs.empty()) {
    res.end = write_offset();
    return res;
  }
  // Start at the segment holding `from`: records begin at segment starts.
  size_t first = 0;
  while (first + 1 < segs.size() && segs[first + 1]->base_offset() <= from)
    ++first;
  // Verify every segment first: whether damage is a torn tail depends on
  // whether any later segment holds a valid record.
  std::vector<segment_scan> scans;
  for (auto i = first; i < segs.size(); ++i) {
    auto& seg = *segs[i];
    // Every segment but the last must end with a blank marker: look past
    // zeros there, they hide nothing in a healthy log.
    bool past_zeros = i + 1 < segs.size();
    scans.push_back(scan_segment(seg.data(), seg.size(), seg.base_offset(),
                                 check_crc, past_zeros, f, on_damage));
  }
  auto verdict = judge_log(scans);
  res.corruptions = std::move(verdict.corruptions);
  res.torn_tail_offset = verdict.torn_tail_offset;
  auto cut_idx = first; // segment holding the end (nothing valid at all)
  size_t cut_pos = 0;
  if (verdict.last_valid < scans.size()) {
    cut_idx = first + verdict.last_valid;
    cut_pos = scans[verdict.last_valid].valid_end;
  }
  for (auto& bad : res.corruptions)
    RMQ_WARN("store", "commit log: corrupt range at "
                        << bad.offset << " (" << bad.length << " bytes, "
                        << bad.reason
                        << "), valid records follow: skipped, kept");
  auto& seg = segs[cut_idx];
  res.end = seg->base_offset() + static_cast<int64_t>(cut_pos);
  if (res.torn_tail_offset >= 0)
    RMQ_WARN("store", "commit log: torn tail at " << res.torn_tail_offset
                                                  << ", cutting the log at "
                                                  << res.end);
  if (cut_pos == seg->size() && cut_idx + 1 < segs.size()) {
    ++cut_idx; // the blank ended that segment: the next one is all tail
    cut_pos = 0;
  }
  if (cut_pos < segs[cut_idx]->size()) {
    // Cut: zero the rest of the segment holding the end, drop later ones.
    if (auto err = segs[cut_idx]->zero_tail(cut_pos))
      return err;
    std::lock_guard<std::mutex> guard{mtx_};
    for (auto i = cut_idx + 1; i < segments_.size(); ++i) {
      RMQ_WARN("store", "commit log: dropping segment "
                          << segments_[i]->path()
                          << ": no valid record after the cut");
      segments_[i]->remove();
      ++res.dropped_segments;
    }
    segments_.resize(std::min(segments_.size(), cut_idx + 1));
    current_ = segments_.back();
  }
  write_offset_.store(res.end, std::memory_order_release);
  flushed_offset_.store(res.end, std::memory_order_release);
  // Recovered: the writer goes on in the last segment.
  if (current_ != nullptr)
    current_->advise_writing(true);
  return res;
}

void commit_log::scan(int64_t from, int64_t to, const record_handler& f) const {
  std::vector<mapped_file_ptr> segs;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    segs = segments_;
  }
  for (auto& seg : segs) {
    auto base = seg->base_offset();
    auto size = static_cast<int64_t>(seg->size());
    if (base + size <= from)
      continue;
    if (base >= to)
      break;
    auto pos = static_cast<size_t>(std::max<int64_t>(from - base, 0));
    auto limit = static_cast<size_t>(std::min(to - base, size));
    walk(*seg, pos, limit, f);
  }
}

int64_t commit_log::first_segment_since(int64_t ts) const {
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto i = segments_.size(); i-- > 0;) {
    auto& seg = segments_[i];
    record_view rec;
    if (decode_record(seg->data(), seg->size(), rec, false) == decode_status::ok
        && rec.store_timestamp < ts)
      return seg->base_offset();
  }
  return segments_.empty() ? write_offset() : segments_.front()->base_offset();
}

} // namespace rmq::storage
