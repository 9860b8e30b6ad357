#include "runtime/storage/timer_store.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"
#include "runtime/message/byte_coding.hpp"

namespace rmq::storage {

namespace {

// A slot: time (8), newest entry + 1 (8, 0: none), count (4), spare (12).
constexpr size_t slot_size = 32;
// An entry: previous entry of the slot + 1 (8, 0: none), slot time (8),
// phys offset (8), size (4), queue offset (8), CRC32 of the 36 before (4).
constexpr size_t entry_size = 40;
constexpr size_t entry_crc_at = 36;

uint32_t crc_of(const char* p, size_t n) {
  return static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0),
                                     reinterpret_cast<const Bytef*>(p),
                                     static_cast<uInt>(n)));
}

std::string wheel_path(const std::string& dir) {
  return dir + "/timerwheel";
}

std::string log_dir(const std::string& dir) {
  return dir + "/timerlog";
}

std::string checkpoint_path(const std::string& dir) {
  return dir + "/timercheck.json";
}

caf::error io(std::string what) {
  return make_error(errc::io_error, std::move(what));
}

int64_t floor_to(int64_t x, int64_t p) {
  auto q = x / p;
  if (q * p > x)
    --q;
  return q * p;
}

} // namespace

timer_store::~timer_store() = default;

size_t timer_store::slot_index(int64_t slot_ms) const {
  auto n = slot_ms / cfg_.precision_ms;
  auto m = n % cfg_.wheel_slots;
  if (m < 0)
    m += cfg_.wheel_slots;
  return static_cast<size_t>(m);
}

timer_store::slot_view timer_store::read_slot(size_t i) const {
  auto p = wheel_->data() + i * slot_size;
  slot_view s;
  s.time_ms = static_cast<int64_t>(get_be64(p));
  s.last = static_cast<int64_t>(get_be64(p + 8)) - 1;
  s.num = static_cast<int32_t>(get_be32(p + 16));
  return s;
}

void timer_store::write_slot(size_t i, const slot_view& s) {
  auto p = wheel_->data() + i * slot_size;
  put_be64(p, static_cast<uint64_t>(s.time_ms));
  put_be64(p + 8, static_cast<uint64_t>(s.last + 1));
  put_be32(p + 16, static_cast<uint32_t>(s.num));
}

void timer_store::set_bit(size_t i, bool on) {
  auto& w = bits_[i / 64];
  auto mask = uint64_t{1} << (i % 64);
  w = on ? (w | mask) : (w & ~mask);
}

caf::expected<char*> timer_store::entry_at(int64_t index, bool create) {
  auto base = index - index % cfg_.log_segment_entries;
  auto i = segments_.find(base);
  if (i == segments_.end()) {
    if (!create)
      return io("timer log entry " + std::to_string(index) + " is gone");
    auto f = mapped_file::open(
      log_dir(cfg_.dir) + "/" + offset_file_name(base),
      static_cast<size_t>(cfg_.log_segment_entries) * entry_size, base);
    if (!f)
      return std::move(f.error());
    i = segments_.emplace(base, std::move(*f)).first;
  }
  return i->second->data() + static_cast<size_t>(index - base) * entry_size;
}

caf::expected<const char*> timer_store::entry_at(int64_t index) const {
  auto base = index - index % cfg_.log_segment_entries;
  auto i = segments_.find(base);
  if (i == segments_.end())
    return io("timer log entry " + std::to_string(index) + " is gone");
  return i->second->data() + static_cast<size_t>(index - base) * entry_size;
}

caf::error timer_store::append(const timer_entry& e, int64_t prev,
                               int64_t& index) {
  index = log_end_;
  auto p = entry_at(index, true);
  if (!p)
    return std::move(p.error());
  put_be64(*p, static_cast<uint64_t>(prev + 1));
  put_be64(*p + 8, static_cast<uint64_t>(e.slot_ms));
  put_be64(*p + 16, static_cast<uint64_t>(e.phys_offset));
  put_be32(*p + 24, static_cast<uint32_t>(e.size));
  put_be64(*p + 28, static_cast<uint64_t>(e.queue_offset));
  put_be32(*p + entry_crc_at, crc_of(*p, entry_crc_at));
  ++log_end_;
  auto base = index - index % cfg_.log_segment_entries;
  auto& mx = segment_max_slot_[base];
  mx = std::max(mx, e.slot_ms);
  return caf::none;
}

caf::error timer_store::add(timer_entry e) {
  if (e.queue_offset < enqueue_offset_)
    return make_error(
      errc::invalid_parameter,
      "timer entry for queue offset " + std::to_string(e.queue_offset)
        + " is below the enqueue offset " + std::to_string(enqueue_offset_));
  e.slot_ms = std::max(floor_to(e.slot_ms, cfg_.precision_ms), read_ms_);
  if (e.slot_ms >= read_ms_ + cfg_.wheel_slots * cfg_.precision_ms)
    return make_error(errc::system_busy, "timer slot "
                                           + std::to_string(e.slot_ms)
                                           + " is a whole wheel ahead of "
                                           + std::to_string(read_ms_));
  auto i = slot_index(e.slot_ms);
  auto s = read_slot(i);
  if (s.time_ms != e.slot_ms || s.num == 0)
    s = slot_view{e.slot_ms, -1, 0};
  int64_t index = 0;
  if (auto err = append(e, s.last, index))
    return err;
  s.last = index;
  ++s.num;
  write_slot(i, s);
  set_bit(i, true);
  ++pending_;
  enqueue_offset_ = e.queue_offset + 1;
  return caf::none;
}

void timer_store::skip(int64_t queue_offset) {
  enqueue_offset_ = std::max(enqueue_offset_, queue_offset + 1);
}

caf::expected<std::vector<timer_entry>> timer_store::due() const {
  std::vector<timer_entry> out;
  auto s = read_slot(slot_index(read_ms_));
  if (s.time_ms != read_ms_ || s.num == 0)
    return out;
  out.reserve(static_cast<size_t>(s.num));
  auto at = s.last;
  while (at >= 0 && out.size() < static_cast<size_t>(s.num)) {
    if (at < log_begin_ || at >= log_end_)
      return make_error(errc::corrupt_data,
                        "timer slot " + std::to_string(read_ms_)
                          + " links to entry " + std::to_string(at)
                          + " outside the log");
    auto p = entry_at(at);
    if (!p)
      return std::move(p.error());
    if (get_be32(*p + entry_crc_at) != crc_of(*p, entry_crc_at))
      return make_error(errc::corrupt_data, "timer log entry "
                                              + std::to_string(at)
                                              + " fails its CRC");
    timer_entry e;
    e.slot_ms = static_cast<int64_t>(get_be64(*p + 8));
    e.phys_offset = static_cast<int64_t>(get_be64(*p + 16));
    e.size = static_cast<int32_t>(get_be32(*p + 24));
    e.queue_offset = static_cast<int64_t>(get_be64(*p + 28));
    out.push_back(e);
    at = static_cast<int64_t>(get_be64(*p)) - 1;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

caf::error timer_store::advance() {
  auto i = slot_index(read_ms_);
  auto s = read_slot(i);
  if (s.time_ms == read_ms_)
    pending_ -= s.num;
  set_bit(i, false);
  read_ms_ += cfg_.precision_ms;
  drop_dead_segments();
  return caf::none;
}

void timer_store::drop_dead_segments() {
  // Every entry of a segment fired (its latest slot is past), and it is
  // not the one being written: it goes.
  auto write_base = log_end_ - log_end_ % cfg_.log_segment_entries;
  while (!segments_.empty()) {
    auto i = segments_.begin();
    if (i->first >= write_base)
      break;
    auto mx = segment_max_slot_.find(i->first);
    if (mx != segment_max_slot_.end() && mx->second >= read_ms_)
      break;
    i->second->remove();
    segment_max_slot_.erase(i->first);
    segments_.erase(i);
    log_begin_ = segments_.empty() ? write_base : segments_.begin()->first;
  }
}

int64_t timer_store::next_due_ms() const {
  if (pending_ <= 0)
    return -1;
  // From the read time's slot round the wheel once.
  auto n = static_cast<size_t>(cfg_.wheel_slots);
  auto start = slot_index(read_ms_);
  for (size_t k = 0; k < n;) {
    auto i = (start + k) % n;
    auto w = bits_[i / 64] >> (i % 64);
    if (w == 0) {
      k += 64 - i % 64;
      continue;
    }
    auto step = static_cast<size_t>(__builtin_ctzll(w));
    if (k + step >= n)
      break;
    auto j = (start + k + step) % n;
    auto s = read_slot(j);
    auto expect = read_ms_ + static_cast<int64_t>(k + step) * cfg_.precision_ms;
    if (s.time_ms == expect && s.num > 0)
      return expect;
    k += step + 1;
  }
  return -1;
}

caf::error timer_store::flush() {
  return save_checkpoint(false);
}

caf::error timer_store::close() {
  return save_checkpoint(true);
}

caf::error timer_store::save_checkpoint(bool clean) {
  if (auto err = wheel_->sync())
    return err;
  for (auto& [base, f] : segments_)
    if (base + cfg_.log_segment_entries > log_begin_)
      if (auto err = f->sync())
        return err;
  nlohmann::json segs = nlohmann::json::array();
  for (auto& [base, mx] : segment_max_slot_)
    segs.push_back({base, mx});
  nlohmann::json doc{
    {"version", 1},
    {"precision_ms", cfg_.precision_ms},
    {"wheel_slots", cfg_.wheel_slots},
    {"log_segment_entries", cfg_.log_segment_entries},
    {"read_ms", read_ms_},
    {"enqueue_offset", enqueue_offset_},
    {"log_begin", log_begin_},
    {"log_end", log_end_},
    {"clean", clean},
    {"segments", std::move(segs)},
  };
  return json_file::save(checkpoint_path(cfg_.dir), doc);
}

caf::error timer_store::rebuild(bool fresh) {
  rebuilt_ = !fresh;
  // A new wheel file is all zeros already: touching it would cost its
  // whole size in memory.
  if (!fresh)
    std::memset(wheel_->data(), 0, wheel_->size());
  std::fill(bits_.begin(), bits_.end(), 0);
  pending_ = 0;
  segment_max_slot_.clear();
  auto span = cfg_.wheel_slots * cfg_.precision_ms;
  for (auto at = log_begin_; at < log_end_; ++at) {
    auto p = entry_at(at);
    if (!p)
      return std::move(p.error());
    if (get_be32(*p + entry_crc_at) != crc_of(*p, entry_crc_at)) {
      // Synced before the checkpoint named it: damage, not a torn write.
      // The entries from here on are cut; the queue supplies them again.
      RMQ_ERROR("timer", "timer log entry " << at
                                            << " fails its CRC; cutting the "
                                               "log there");
      log_end_ = at;
      break;
    }
    auto slot = static_cast<int64_t>(get_be64(*p + 8));
    auto qoff = static_cast<int64_t>(get_be64(*p + 28));
    auto base = at - at % cfg_.log_segment_entries;
    auto& mx = segment_max_slot_[base];
    mx = std::max(mx, slot);
    (void)qoff;
    if (slot < read_ms_ || slot >= read_ms_ + span)
      continue;
    auto i = slot_index(slot);
    auto s = read_slot(i);
    if (s.time_ms != slot)
      s = slot_view{slot, -1, 0};
    s.last = at;
    ++s.num;
    write_slot(i, s);
    set_bit(i, true);
    ++pending_;
  }
  if (log_end_ == log_begin_ && segments_.empty())
    return caf::none;
  // Zero what lies past the end, so a later append never links to old
  // bytes, and drop segments wholly past it.
  for (auto i = segments_.begin(); i != segments_.end();) {
    auto& [base, f] = *i;
    if (base >= log_end_ && base > log_begin_) {
      f->remove();
      segment_max_slot_.erase(base);
      i = segments_.erase(i);
      continue;
    }
    if (base + cfg_.log_segment_entries > log_end_)
      if (auto err
          = f->zero_tail(static_cast<size_t>(log_end_ - base) * entry_size))
        return err;
    ++i;
  }
  return caf::none;
}

caf::expected<std::unique_ptr<timer_store>>
timer_store::open(const timer_store_config& cfg, int64_t start_ms) {
  if (cfg.precision_ms <= 0 || cfg.wheel_slots <= 0
      || cfg.log_segment_entries <= 0)
    return make_error(errc::invalid_parameter,
                      "timer store: precision, slots and segment entries "
                      "must be positive");
  std::unique_ptr<timer_store> ts{new timer_store};
  ts->cfg_ = cfg;
  if (auto err = make_dirs(log_dir(cfg.dir)))
    return err;
  bool clean = false;
  bool fresh = false; // no checkpoint, or a damaged one kept aside
  auto loaded = json_file::load_config(
    checkpoint_path(cfg.dir), "timer",
    "timers are rebuilt from the timer topic's first message: timers that "
    "fired already fire again",
    [&](const nlohmann::json& doc) -> caf::error {
      if (doc.is_null()) {
        // A new timer (or a damaged checkpoint kept aside): whatever
        // files lie here are not named by any checkpoint, so they hold
        // nothing durable.
        for (auto base : list_offset_files(log_dir(cfg.dir)))
          std::filesystem::remove(log_dir(cfg.dir) + "/"
                                  + offset_file_name(base));
        std::error_code ec;
        std::filesystem::remove(wheel_path(cfg.dir), ec);
        ts->read_ms_ = floor_to(start_ms, cfg.precision_ms);
        fresh = true;
        return {};
      }
      try {
        if (doc.at("precision_ms").get<int64_t>() != cfg.precision_ms
            || doc.at("wheel_slots").get<int64_t>() != cfg.wheel_slots
            || doc.at("log_segment_entries").get<int64_t>()
                 != cfg.log_segment_entries)
          return make_error(errc::invalid_parameter,
                            "timer store " + cfg.dir
                              + ": precision, slots or segment size differ "
                                "from the files'");
        auto read_ms = doc.at("read_ms").get<int64_t>();
        auto enqueue_offset = doc.at("enqueue_offset").get<int64_t>();
        auto log_begin = doc.at("log_begin").get<int64_t>();
        auto log_end = doc.at("log_end").get<int64_t>();
        auto was_clean = doc.at("clean").get<bool>();
        std::map<int64_t, int64_t> max_slots;
        for (auto& x : doc.at("segments"))
          max_slots[x.at(0).get<int64_t>()] = x.at(1).get<int64_t>();
        ts->read_ms_ = read_ms;
        ts->enqueue_offset_ = enqueue_offset;
        ts->log_begin_ = log_begin;
        ts->log_end_ = log_end;
        clean = was_clean;
        ts->segment_max_slot_ = std::move(max_slots);
      } catch (const nlohmann::json::exception& e) {
        return make_error(errc::corrupt_data, e.what());
      }
      return {};
    });
  if (loaded.blocked)
    return std::move(loaded.blocked);
  auto wheel = mapped_file::open(
    wheel_path(cfg.dir), static_cast<size_t>(cfg.wheel_slots) * slot_size, 0);
  if (!wheel)
    return std::move(wheel.error());
  ts->wheel_ = std::move(*wheel);
  ts->bits_.assign(static_cast<size_t>((cfg.wheel_slots + 63) / 64), 0);
  for (auto base : list_offset_files(log_dir(cfg.dir))) {
    if (base + cfg.log_segment_entries <= ts->log_begin_) {
      // Fired before the crash, removed after the checkpoint.
      std::filesystem::remove(log_dir(cfg.dir) + "/" + offset_file_name(base));
      continue;
    }
    auto f = mapped_file::open(
      log_dir(cfg.dir) + "/" + offset_file_name(base),
      static_cast<size_t>(cfg.log_segment_entries) * entry_size, base);
    if (!f)
      return std::move(f.error());
    ts->segments_.emplace(base, std::move(*f));
  }
  for (auto at = ts->log_begin_; at < ts->log_end_;
       at += cfg.log_segment_entries - at % cfg.log_segment_entries)
    if (ts->segments_.count(at - at % cfg.log_segment_entries) == 0)
      return make_error(errc::corrupt_data, "timer log segment for entry "
                                              + std::to_string(at)
                                              + " is missing");
  if (!clean || fresh) {
    if (auto err = ts->rebuild(fresh))
      return err;
  } else {
    auto now = ts->read_ms_;
    auto span = cfg.wheel_slots * cfg.precision_ms;
    for (size_t i = 0; i < static_cast<size_t>(cfg.wheel_slots); ++i) {
      auto s = ts->read_slot(i);
      if (s.num > 0 && s.time_ms >= now && s.time_ms < now + span) {
        ts->set_bit(i, true);
        ts->pending_ += s.num;
      }
    }
  }
  // Not clean until the next close says so.
  if (auto err = ts->save_checkpoint(false))
    return err;
  return ts;
}

timer_store_stats timer_store::stats() const {
  timer_store_stats out;
  out.read_ms = read_ms_;
  out.enqueue_offset = enqueue_offset_;
  out.pending = pending_;
  out.next_due_ms = next_due_ms();
  out.log_entries = log_end_ - log_begin_;
  out.log_segments = static_cast<int64_t>(segments_.size());
  out.rebuilt = rebuilt_;
  return out;
}

} // namespace rmq::storage
