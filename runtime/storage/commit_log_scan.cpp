// Reading the commit log from end to end: recovery's verify-and-cut scan,
// the read-only scan that refills the dedup table, and where the dedup
// window starts. Split from commit_log.cpp, which appends and syncs.
#include "runtime/storage/commit_log.hpp"

#include <algorithm>

#include "runtime/log.hpp"

namespace rmq::storage {

namespace {

struct walk_result {
  size_t pos;          // after the last valid record
  decode_status stop;  // why the walk stopped (ok: reached `limit`)
};

// Calls `f` for each valid record of `seg` that starts in [pos, limit).
walk_result walk(const mapped_file& seg, size_t pos, size_t limit,
                 bool check_crc, const commit_log::record_handler& f) {
  while (pos < limit) {
    record_view rec;
    auto st = decode_record(seg.data() + pos, seg.size() - pos, rec,
                            check_crc);
    auto phys = seg.base_offset() + static_cast<int64_t>(pos);
    if (st == decode_status::ok && rec.phys_offset != phys)
      st = decode_status::corrupt; // a record out of place
    if (st != decode_status::ok)
      return {pos, st};
    f(rec, phys);
    pos += static_cast<size_t>(rec.total_size);
  }
  return {pos, decode_status::ok};
}

} // namespace

caf::expected<int64_t> commit_log::recover(int64_t from, bool check_crc,
                                           const record_handler& f) {
  std::vector<mapped_file_ptr> segs;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    segs = segments_;
  }
  if (segs.empty())
    return write_offset();
  // Start at the segment holding `from`: records begin at segment starts.
  size_t idx = 0;
  while (idx + 1 < segs.size() && segs[idx + 1]->base_offset() <= from)
    ++idx;
  int64_t end = segs[idx]->base_offset();
  size_t cut_idx = idx;
  for (; idx < segs.size(); ++idx) {
    auto& seg = segs[idx];
    cut_idx = idx;
    auto w = walk(*seg, 0, seg->size(), check_crc, f);
    end = seg->base_offset() + static_cast<int64_t>(w.pos);
    if (w.stop == decode_status::corrupt)
      RMQ_WARN("store", "commit log: corrupt record at "
                          << end << ", cutting the log there");
    if (w.stop != decode_status::blank)
      break;
    end = seg->base_offset() + static_cast<int64_t>(seg->size());
    if (idx + 1 == segs.size())
      cut_idx = segs.size(); // the blank ended the last segment: keep all
  }
  // Cut: zero the rest of the segment holding `end`, drop later segments.
  if (cut_idx < segs.size()) {
    auto& seg = segs[cut_idx];
    auto pos = static_cast<size_t>(end - seg->base_offset());
    if (pos < seg->size())
      if (auto err = seg->zero_tail(pos))
        return err;
    std::lock_guard<std::mutex> guard{mtx_};
    for (auto i = cut_idx + 1; i < segments_.size(); ++i) {
      RMQ_WARN("store", "commit log: dropping segment "
                          << segments_[i]->path() << " after the cut");
      segments_[i]->remove();
    }
    segments_.resize(std::min(segments_.size(), cut_idx + 1));
    current_ = segments_.back();
  }
  write_offset_.store(end, std::memory_order_release);
  flushed_offset_.store(end, std::memory_order_release);
  return end;
}

void commit_log::scan(int64_t from, int64_t to,
                      const record_handler& f) const {
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
    auto w = walk(*seg, pos, limit, false, f);
    if (w.stop != decode_status::ok && w.stop != decode_status::blank)
      break; // the end of the data: recovery deals with what follows
  }
}

int64_t commit_log::first_segment_since(int64_t ts) const {
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto i = segments_.size(); i-- > 0;) {
    auto& seg = segments_[i];
    record_view rec;
    if (decode_record(seg->data(), seg->size(), rec, false)
          == decode_status::ok
        && rec.store_timestamp < ts)
      return seg->base_offset();
  }
  return segments_.empty() ? write_offset() : segments_.front()->base_offset();
}

} // namespace rmq::storage
