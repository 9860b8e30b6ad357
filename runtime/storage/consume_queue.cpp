#include "runtime/storage/consume_queue.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "runtime/common/log.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/storage/file_layout.hpp"

namespace rmq::storage {

std::vector<consume_queue_dir>
list_consume_queue_dirs(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<consume_queue_dir> result;
  std::error_code ec;
  for (auto& topic_dir : fs::directory_iterator(root, ec)) {
    if (!topic_dir.is_directory())
      continue;
    auto topic = topic_dir.path().filename().string();
    for (auto& qdir : fs::directory_iterator(topic_dir.path(), ec)) {
      auto name = qdir.path().filename().string();
      int32_t qid = -1;
      auto [end, err] = std::from_chars(name.data(), name.data() + name.size(),
                                        qid);
      if (!qdir.is_directory() || name.empty() || err != std::errc{}
          || end != name.data() + name.size() || qid < 0)
        continue;
      result.push_back({topic, qid});
    }
  }
  return result;
}

namespace {

void write_unit(char* p, const cq_unit& u) {
  put_be64(p, static_cast<uint64_t>(u.phys_offset));
  put_be32(p + 8, static_cast<uint32_t>(u.size));
  put_be64(p + 12, static_cast<uint64_t>(u.tags_code));
}

cq_unit read_unit(const char* p) {
  return {static_cast<int64_t>(get_be64(p)),
          static_cast<int32_t>(get_be32(p + 8)),
          static_cast<int64_t>(get_be64(p + 12))};
}

} // namespace

consume_queue::consume_queue(const store_config& cfg, std::string topic,
                             int32_t queue_id)
  : cfg_(cfg),
    topic_(std::move(topic)),
    queue_id_(queue_id),
    dir_(cfg.dir + "/consumequeue/" + topic_ + "/" + std::to_string(queue_id)) {
  // nop
}

caf::error consume_queue::load() {
  auto bases = list_offset_files(dir_);
  files_.clear();
  for (auto base : bases) {
    if (!files_.empty()
        && base
             != files_.back()->base_offset()
                  + static_cast<int64_t>(file_bytes()))
      break; // a hole: the rest is rebuilt from the commit log
    auto f = mapped_file::open(dir_ + "/" + offset_file_name(base),
                               file_bytes(), base, cfg_.faults);
    if (!f)
      return std::move(f.error());
    files_.push_back(std::move(*f));
  }
  if (files_.empty())
    return caf::none;
  // Units are written in order: binary search for the first empty one.
  auto first = files_.front()->base_offset() / 20;
  auto lo = first;
  auto hi = first
            + static_cast<int64_t>(files_.size() * cfg_.cq_units_per_file);
  while (lo < hi) {
    auto mid = lo + (hi - lo) / 2;
    if (read_unit(unit_ptr(mid)).size != 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  max_offset_ = lo;
  min_offset_ = first;
  while (min_offset_ < max_offset_ && read_unit(unit_ptr(min_offset_)).blank())
    ++min_offset_;
  synced_offset_ = max_offset_;
  return caf::none;
}

char* consume_queue::unit_ptr(int64_t queue_offset) const {
  auto byte = queue_offset * 20;
  auto idx = static_cast<size_t>((byte - files_.front()->base_offset())
                                 / static_cast<int64_t>(file_bytes()));
  auto& f = files_[idx];
  return f->data() + (byte - f->base_offset());
}

caf::error consume_queue::ensure_file(int64_t queue_offset) {
  auto per_file = static_cast<int64_t>(cfg_.cq_units_per_file);
  auto base = (queue_offset / per_file) * per_file * 20;
  if (files_.empty()) {
    if (auto err = make_dirs(dir_))
      return err;
  } else if (base < files_.back()->base_offset()
                      + static_cast<int64_t>(file_bytes())) {
    return caf::none;
  }
  auto next = files_.empty() ? base
                             : files_.back()->base_offset()
                                 + static_cast<int64_t>(file_bytes());
  for (; next <= base; next += static_cast<int64_t>(file_bytes())) {
    auto f = mapped_file::open(dir_ + "/" + offset_file_name(next),
                               file_bytes(), next, cfg_.faults);
    if (!f)
      return std::move(f.error());
    files_.push_back(std::move(*f));
  }
  return caf::none;
}

bool consume_queue::has_file_for(int64_t queue_offset) const {
  if (files_.empty())
    return false;
  auto byte = queue_offset * 20;
  return byte
         < files_.back()->base_offset() + static_cast<int64_t>(file_bytes());
}

caf::error consume_queue::put(int64_t queue_offset, const cq_unit& unit) {
  if (queue_offset < max_offset_)
    return caf::none; // already dispatched
  if (auto err = ensure_file(queue_offset))
    return err;
  if (max_offset_ == 0 && min_offset_ == 0 && queue_offset > 0) {
    // First unit of a queue that starts late (older units expired).
    auto first = files_.front()->base_offset() / 20;
    for (auto i = first; i < queue_offset; ++i)
      write_unit(unit_ptr(i), {0, INT32_MAX, 0});
    min_offset_ = queue_offset;
    max_offset_ = queue_offset;
  }
  for (; max_offset_ < queue_offset; ++max_offset_) {
    RMQ_WARN("store", "consume queue " << topic_ << "/" << queue_id_
                                       << ": filling gap at " << max_offset_);
    write_unit(unit_ptr(max_offset_), {0, INT32_MAX, 0});
  }
  write_unit(unit_ptr(queue_offset), unit);
  max_offset_ = queue_offset + 1;
  return caf::none;
}

void consume_queue::overwrite(int64_t queue_offset, const cq_unit& unit) {
  if (queue_offset >= min_offset_ && queue_offset < max_offset_) {
    write_unit(unit_ptr(queue_offset), unit);
    // Synced by the next checkpoint, whatever it believed synced before.
    synced_offset_ = std::min(synced_offset_, queue_offset);
  }
}

bool consume_queue::get(int64_t queue_offset, cq_unit& out) const {
  if (queue_offset < min_offset_ || queue_offset >= max_offset_)
    return false;
  out = read_unit(unit_ptr(queue_offset));
  return true;
}

void consume_queue::truncate_dirty(int64_t phys_end) {
  while (max_offset_ > min_offset_) {
    auto u = read_unit(unit_ptr(max_offset_ - 1));
    if (!u.blank() && u.phys_offset + u.size <= phys_end)
      break;
    memset(unit_ptr(max_offset_ - 1), 0, cq_unit_size);
    --max_offset_;
  }
  if (max_offset_ == min_offset_ && !files_.empty()) {
    // Nothing left: blank fillers before min_offset go too.
    auto first = files_.front()->base_offset() / 20;
    for (auto i = first; i < min_offset_; ++i)
      memset(unit_ptr(i), 0, cq_unit_size);
    if (min_offset_ == first)
      min_offset_ = max_offset_ = 0;
  }
  synced_offset_ = std::min(synced_offset_, max_offset_);
}

void consume_queue::correct_min_offset(int64_t phys_min) {
  while (min_offset_ < max_offset_) {
    auto u = read_unit(unit_ptr(min_offset_));
    if (!u.blank() && u.phys_offset >= phys_min)
      break;
    ++min_offset_;
  }
  // Drop files entirely below min_offset, keeping the last one.
  while (files_.size() > 1) {
    auto end
      = (files_.front()->base_offset() + static_cast<int64_t>(file_bytes()))
        / 20;
    if (end > min_offset_)
      break;
    files_.front()->remove();
    files_.erase(files_.begin());
  }
}

void consume_queue::take_unsynced(std::vector<mapped_file_ptr>& out) {
  if (synced_offset_ >= max_offset_ || files_.empty())
    return;
  auto per_file = static_cast<int64_t>(cfg_.cq_units_per_file);
  auto first = files_.front()->base_offset() / 20;
  auto from = std::max(synced_offset_, first);
  for (auto i = (from - first) / per_file;
       i <= (max_offset_ - 1 - first) / per_file; ++i)
    out.push_back(files_[static_cast<size_t>(i)]);
  synced_offset_ = max_offset_;
}

int64_t consume_queue::max_phys_end() const {
  for (auto i = max_offset_; i > min_offset_; --i) {
    auto u = read_unit(unit_ptr(i - 1));
    if (!u.blank())
      return u.phys_offset + u.size;
  }
  return 0;
}

std::string consume_queue::check(int64_t log_extent) const {
  int64_t prev_start = -1;
  int64_t prev_end = 0;
  for (auto off = min_offset_; off < max_offset_; ++off) {
    auto u = read_unit(unit_ptr(off));
    if (u.blank())
      continue; // a filler before the first unit, or for a gap
    auto at = "unit " + std::to_string(off) + " (phys "
              + std::to_string(u.phys_offset) + ", size "
              + std::to_string(u.size) + "): ";
    if (u.size <= 0)
      return at + "impossible size";
    if (u.phys_offset < 0 || u.phys_offset + u.size > log_extent)
      return at + "outside the commit log";
    if (u.damaged())
      continue; // a damaged range, possibly shared by several units
    // A queue's records follow each other along the log; units for
    // records lost to damage may share one damaged range.
    if (u.phys_offset < prev_end && u.phys_offset != prev_start)
      return at + "overlaps the record of the unit before it";
    prev_start = u.phys_offset;
    prev_end = u.phys_offset + u.size;
  }
  // Units are written in order, so `load` takes the first empty one as the
  // end; a zeroed page in the middle would hide the units after it. A
  // page's worth and more past the end must be empty.
  if (!files_.empty()) {
    auto first = files_.front()->base_offset() / 20;
    auto cap = first
               + static_cast<int64_t>(files_.size() * cfg_.cq_units_per_file);
    for (auto off = max_offset_; off < std::min(cap, max_offset_ + 256); ++off)
      if (read_unit(unit_ptr(off)).size != 0)
        return "unit " + std::to_string(off) + " is written past the end ("
               + std::to_string(max_offset_) + ")";
  }
  return {};
}

void consume_queue::destroy() {
  for (auto& f : files_)
    f->remove();
  files_.clear();
  min_offset_ = max_offset_ = synced_offset_ = 0;
}

} // namespace rmq::storage
