#include "runtime/storage/commit_log.hpp"

#include <algorithm>
#include <cstring>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/log_format.hpp"

namespace rmq::storage {

namespace {

void write_blank(char* p, size_t remaining) {
  put_be32(p, static_cast<uint32_t>(remaining));
  put_be32(p + 4, blank_magic);
}

} // namespace

commit_log::commit_log(const store_config& cfg)
  : cfg_(cfg), dir_(cfg.dir + "/commitlog") {
  // nop
}

caf::error commit_log::load() {
  if (auto err = make_dirs(dir_))
    return err;
  auto bases = list_offset_files(dir_);
  std::lock_guard<std::mutex> guard{mtx_};
  segments_.clear();
  holes_.clear();
  auto seg_size = static_cast<int64_t>(cfg_.segment_size);
  for (auto base : bases) {
    if (!segments_.empty()) {
      auto expected = segments_.back()->base_offset() + seg_size;
      if (base < expected || (base - expected) % seg_size != 0)
        return make_error(errc::corrupt_data,
                          "commit log segment " + offset_file_name(base)
                            + " does not follow the segment before it at "
                            + std::to_string(seg_size)
                            + "-byte steps (segment size changed?)");
      if (base > expected) {
        // Missing segment files: keep every later one, report the hole.
        RMQ_WARN("store", "commit log: segments missing in ["
                            << expected << ", " << base
                            << "), keeping the later ones");
        holes_.push_back(
          {expected, expected, base - expected, "segment file missing"});
      }
    }
    auto seg = mapped_file::open(dir_ + "/" + offset_file_name(base),
                                 cfg_.segment_size, base, cfg_.faults);
    if (!seg)
      return std::move(seg.error());
    segments_.push_back(std::move(*seg));
  }
  current_ = segments_.empty() ? nullptr : segments_.back();
  auto start = segments_.empty() ? 0 : segments_.front()->base_offset();
  write_offset_ = start;
  flushed_offset_ = start;
  return caf::none;
}

caf::error commit_log::roll(int64_t base) {
  auto seg = mapped_file::open(dir_ + "/" + offset_file_name(base),
                               cfg_.segment_size, base, cfg_.faults);
  if (!seg)
    return std::move(seg.error());
  (*seg)->advise_writing(true);
  std::lock_guard<std::mutex> guard{mtx_};
  if (current_ != nullptr)
    current_->advise_writing(false);
  segments_.push_back(*seg);
  current_ = std::move(*seg);
  return caf::none;
}

caf::error commit_log::append(const store_message& msg, size_t size,
                              record_stamp& stamp) {
  auto offset = write_offset_.load(std::memory_order_relaxed);
  // Fast path: the record lands inside the warm range of the current
  // segment (no roll, no blank), where no zeros are being written.
  if (current_ != nullptr && offset >= current_->base_offset()) {
    auto pos = static_cast<size_t>(offset - current_->base_offset());
    if (pos + size + end_of_file_min_blank <= current_->size()
        && offset + static_cast<int64_t>(size)
             <= warm_end_.load(std::memory_order_acquire)) {
      stamp.phys_offset = offset;
      encode_record(msg, stamp, current_->data() + pos);
      write_offset_.store(offset + static_cast<int64_t>(size),
                          std::memory_order_release);
      return caf::none;
    }
  }
  std::lock_guard<std::mutex> guard{warm_mtx_};
  return append_locked(msg, size, stamp);
}

caf::error commit_log::append_locked(const store_message& msg, size_t size,
                                     record_stamp& stamp) {
  auto offset = write_offset_.load(std::memory_order_relaxed);
  if (current_ == nullptr
      || offset >= current_->base_offset()
                     + static_cast<int64_t>(current_->size())) {
    if (auto err = roll(offset))
      return err;
  }
  auto pos = static_cast<size_t>(offset - current_->base_offset());
  if (pos + size + end_of_file_min_blank > current_->size()) {
    // Does not fit: mark the rest of this segment blank, continue in a new
    // one (the blank marker is part of the log, like a record).
    auto remaining = current_->size() - pos;
    write_blank(current_->data() + pos, remaining);
    offset += static_cast<int64_t>(remaining);
    if (auto err = roll(offset)) {
      // Keep the blank out of the log: it is rewritten on the next try.
      memset(current_->data() + pos, 0, end_of_file_min_blank);
      return err;
    }
    write_offset_.store(offset, std::memory_order_release);
    pos = 0;
  }
  stamp.phys_offset = offset;
  encode_record(msg, stamp, current_->data() + pos);
  write_offset_.store(offset + static_cast<int64_t>(size),
                      std::memory_order_release);
  return caf::none;
}

bool commit_log::needs_warm(size_t ahead) const {
  if (ahead == 0)
    return false;
  auto w = write_offset();
  auto warm = warm_end_.load(std::memory_order_acquire);
  // Past the end of its segment is the next segment's business (the
  // writer's roll resets nothing: warm_end_ then lies behind it).
  auto seg_end = (w / static_cast<int64_t>(cfg_.segment_size) + 1)
                 * static_cast<int64_t>(cfg_.segment_size);
  auto target = std::min(w + static_cast<int64_t>(ahead), seg_end);
  return warm < w + static_cast<int64_t>(ahead / 2) && warm < target;
}

caf::expected<bool> commit_log::warm(size_t ahead, size_t chunk, bool durable) {
  mapped_file_ptr seg;
  bool warmed = false;
  for (;;) {
    std::lock_guard<std::mutex> guard{warm_mtx_};
    auto w = write_offset_.load(std::memory_order_acquire);
    mapped_file_ptr cur;
    {
      std::lock_guard<std::mutex> segs{mtx_};
      cur = current_;
    }
    if (cur == nullptr || (seg != nullptr && cur != seg))
      break;
    seg = cur;
    auto base = seg->base_offset();
    auto seg_end = base + static_cast<int64_t>(seg->size());
    auto from = std::max(warm_end_.load(std::memory_order_relaxed), w);
    auto limit = std::min(w + static_cast<int64_t>(ahead), seg_end);
    // The writer is in a later segment than `current_` showed, or done.
    if (w < base || from >= limit)
      break;
    auto to = std::min(from + static_cast<int64_t>(chunk), limit);
    if (auto err = seg->write_zeros(static_cast<size_t>(from - base),
                                    static_cast<size_t>(to - from)))
      return err;
    // Mapped in now, so the writer's first touch of each page costs no
    // fault. Not when durable: that dirties the pages again, and the
    // writer's own syncs would write them all ahead of the records.
    // populate stores into these bytes: the writer stays below warm_end_
    // or takes warm_mtx_, so they are ours until warm_end_ moves.
    if (!durable)
      if (auto err = seg->populate(static_cast<size_t>(from - base),
                                   static_cast<size_t>(to - from)))
        return err;
    warm_end_.store(to, std::memory_order_release);
    warmed = true;
  }
  // One sync per round, outside the lock: the writer goes on while the
  // zeros reach the disk, and the extents they turn into written ones
  // cost one journal commit per round, not one per step.
  if (warmed && durable)
    if (auto err = seg->sync_zeros())
      return err;
  return warmed;
}

caf::expected<int64_t> commit_log::sync(int64_t up_to) {
  std::lock_guard<std::mutex> sync_guard{sync_mtx_};
  up_to = std::min(up_to, write_offset());
  auto from = flushed_offset();
  if (up_to <= from)
    return from;
  std::vector<mapped_file_ptr> todo;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (auto& seg : segments_) {
      auto seg_end = seg->base_offset() + static_cast<int64_t>(seg->size());
      if (seg_end > from && seg->base_offset() < up_to)
        todo.push_back(seg);
    }
  }
  for (auto& seg : todo) {
    auto base = seg->base_offset();
    auto lo = std::max(from, base) - base;
    auto hi = std::min(up_to, base + static_cast<int64_t>(seg->size())) - base;
    if (auto err = seg->sync_written(static_cast<size_t>(lo),
                                     static_cast<size_t>(hi)))
      return err;
  }
  flushed_offset_.store(up_to, std::memory_order_release);
  return up_to;
}

mapped_file_ptr commit_log::find(int64_t offset) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = std::upper_bound(segments_.begin(), segments_.end(), offset,
                            [](int64_t x, const mapped_file_ptr& seg) {
                              return x < seg->base_offset();
                            });
  if (i == segments_.begin())
    return nullptr;
  --i;
  if (offset >= (*i)->base_offset() + static_cast<int64_t>((*i)->size()))
    return nullptr;
  return *i;
}

const char* commit_log::at(int64_t offset, mapped_file_ptr& hold,
                           size_t& available) const {
  if (offset >= write_offset())
    return nullptr;
  hold = find(offset);
  if (!hold)
    return nullptr;
  auto pos = static_cast<size_t>(offset - hold->base_offset());
  available = hold->size() - pos;
  return hold->data() + pos;
}

caf::error commit_log::read_record(int64_t offset, std::string& out,
                                   bool check_crc) const {
  mapped_file_ptr hold;
  size_t available = 0;
  auto ptr = at(offset, hold, available);
  if (ptr == nullptr)
    return make_error(errc::query_not_found,
                      "no record at offset " + std::to_string(offset));
  record_view rec;
  if (decode_record(ptr, available, rec, check_crc) != decode_status::ok
      || rec.phys_offset != offset)
    return make_error(errc::corrupt_data,
                      "corrupt record at offset " + std::to_string(offset)
                        + ": " + describe_damage(ptr, available, offset));
  out.append(ptr, static_cast<size_t>(rec.total_size));
  return caf::none;
}

size_t commit_log::delete_expired(int64_t now_ms, int64_t max_age_ms,
                                  size_t force, int64_t safe_offset) {
  std::vector<mapped_file_ptr> victims;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    while (segments_.size() > 1) {
      auto& seg = segments_.front();
      auto seg_end = seg->base_offset() + static_cast<int64_t>(seg->size());
      bool expired = seg->mtime_ms() + max_age_ms < now_ms;
      if (seg_end > safe_offset || (!expired && force == 0))
        break;
      if (!expired)
        --force;
      victims.push_back(seg);
      segments_.erase(segments_.begin());
    }
  }
  for (auto& seg : victims) {
    RMQ_INFO("store", "deleting commit log segment " << seg->path());
    seg->remove();
  }
  return victims.size();
}

int64_t commit_log::min_offset() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return segments_.empty() ? write_offset() : segments_.front()->base_offset();
}

size_t commit_log::segment_count() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return segments_.size();
}

int64_t commit_log::last_segment_base() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return segments_.empty() ? 0 : segments_.back()->base_offset();
}

} // namespace rmq::storage
