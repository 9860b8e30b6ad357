#include "runtime/storage/index_file.hpp"

#include <vector>

#include "runtime/message/byte_coding.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/file_layout.hpp"

namespace rmq::storage {

namespace {

// Header fields: begin ts, end ts, begin phys, end phys (8 B each), slot
// count, index count (4 B each).
constexpr size_t h_begin_ts = 0;
constexpr size_t h_end_ts = 8;
constexpr size_t h_begin_phys = 16;
constexpr size_t h_end_phys = 24;
constexpr size_t h_slot_count = 32;
constexpr size_t h_index_count = 36;

int64_t get64(const char* p) {
  return static_cast<int64_t>(get_be64(p));
}

int32_t get32(const char* p) {
  return static_cast<int32_t>(get_be32(p));
}

void put64(char* p, int64_t x) {
  put_be64(p, static_cast<uint64_t>(x));
}

void put32(char* p, int32_t x) {
  put_be32(p, static_cast<uint32_t>(x));
}

} // namespace

int32_t index_key_hash(std::string_view key) {
  auto h = java_hash(key);
  return h == INT32_MIN ? 0 : (h < 0 ? -h : h);
}

caf::expected<std::unique_ptr<index_file>>
index_file::open(const std::string& path, uint32_t slots, uint32_t entries,
                 int64_t base, std::shared_ptr<fault_injection> faults) {
  auto size = index_header_size + size_t{slots} * index_slot_size
              + size_t{entries} * index_entry_size;
  auto f = mapped_file::open(path, size, base, std::move(faults));
  if (!f)
    return std::move(f.error());
  std::unique_ptr<index_file> result{new index_file};
  result->file_ = std::move(*f);
  result->slots_ = slots;
  result->entries_ = entries;
  auto h = result->file_->data();
  if (get32(h + h_index_count) == 0) { // new file: entry 0 is never used
    put32(h + h_index_count, 1);
    put64(h + h_begin_phys, base);
    put64(h + h_end_phys, base);
  }
  return result;
}

char* index_file::slot(uint32_t i) const {
  return file_->data() + index_header_size + size_t{i} * index_slot_size;
}

char* index_file::entry(uint32_t i) const {
  return file_->data() + index_header_size + size_t{slots_} * index_slot_size
         + size_t{i} * index_entry_size;
}

bool index_file::full() const {
  return static_cast<uint32_t>(index_count()) >= entries_;
}

bool index_file::put(std::string_view key, int64_t phys_offset,
                     int64_t store_ts) {
  if (full())
    return false;
  auto h = file_->data();
  auto count = static_cast<uint32_t>(index_count());
  if (count == 1)
    put64(h + h_begin_ts, store_ts);
  auto hash = index_key_hash(key);
  auto s = slot(static_cast<uint32_t>(hash) % slots_);
  auto prev = get32(s);
  auto diff = (store_ts - begin_timestamp()) / 1000;
  auto e = entry(count);
  put32(e, hash);
  put64(e + 4, phys_offset);
  put32(e + 12, static_cast<int32_t>(diff));
  put32(e + 16, prev);
  put32(s, static_cast<int32_t>(count));
  put64(h + h_end_ts, store_ts);
  put64(h + h_end_phys, phys_offset);
  put32(h + h_slot_count, get32(h + h_slot_count) + (prev == 0 ? 1 : 0));
  // The count last: a torn put leaves an entry that is never reached.
  put32(h + h_index_count, static_cast<int32_t>(count + 1));
  return true;
}

void index_file::query(std::string_view key, int64_t begin, int64_t end,
                       size_t max, std::vector<int64_t>& out) const {
  auto hash = index_key_hash(key);
  auto count = static_cast<uint32_t>(index_count());
  auto cur
    = static_cast<uint32_t>(get32(slot(static_cast<uint32_t>(hash) % slots_)));
  auto begin_ts = begin_timestamp();
  // Chains only point backwards; the bound stops loops in damaged files.
  for (uint32_t steps = 0; cur > 0 && cur < count && steps < count; ++steps) {
    auto e = entry(cur);
    auto ts = begin_ts + int64_t{get32(e + 12)} * 1000;
    if (get32(e) == hash && ts >= begin - 999 && ts <= end) {
      if (out.size() >= max)
        return;
      out.push_back(get64(e + 4));
    }
    auto prev = static_cast<uint32_t>(get32(e + 16));
    if (prev >= cur)
      break;
    cur = prev;
  }
}

int64_t index_file::begin_timestamp() const {
  return get64(file_->data() + h_begin_ts);
}

int64_t index_file::end_timestamp() const {
  return get64(file_->data() + h_end_ts);
}

int64_t index_file::end_phys_offset() const {
  return get64(file_->data() + h_end_phys);
}

uint32_t index_file::room() const {
  auto used = static_cast<uint32_t>(index_count());
  return used >= entries_ ? 0 : entries_ - used;
}

int32_t index_file::index_count() const {
  return get32(file_->data() + h_index_count);
}

std::string index_file::check(int64_t log_extent) const {
  return check_index_bytes(file_->data(), file_->size(), slots_, entries_,
                           log_extent);
}

std::string check_index_bytes(const char* h, size_t size, uint32_t slots,
                              uint32_t entries, int64_t log_extent) {
  auto want = index_header_size + size_t{slots} * index_slot_size
              + size_t{entries} * index_entry_size;
  if (size != want)
    return "file has " + std::to_string(size) + " bytes, not "
           + std::to_string(want) + " (" + std::to_string(slots) + " slots, "
           + std::to_string(entries) + " entries)";
  auto slot = [&](uint32_t i) { return h + index_header_size + i * 4; };
  auto entry = [&](uint32_t i) {
    return h + index_header_size + size_t{slots} * index_slot_size
           + size_t{i} * index_entry_size;
  };
  auto count = get32(h + h_index_count);
  if (count < 1 || static_cast<uint32_t>(count) > entries)
    return "index count " + std::to_string(count) + " outside 1.."
           + std::to_string(entries);
  if (get64(h + h_end_phys) > log_extent)
    return "last indexed offset " + std::to_string(get64(h + h_end_phys))
           + " is past the commit log";
  // Every entry is reached from exactly one slot, through entries that
  // point only backwards, and its hash belongs to that slot.
  auto ucount = static_cast<uint32_t>(count);
  std::vector<bool> reached(ucount, false);
  for (uint32_t i = 0; i < slots; ++i) {
    auto cur = static_cast<uint32_t>(get32(slot(i)));
    if (cur == ucount && ucount < entries)
      // A put torn before its count was written: never reached (see put).
      cur = static_cast<uint32_t>(get32(entry(cur) + 16));
    if (cur >= ucount)
      return "slot " + std::to_string(i) + " points at entry "
             + std::to_string(cur) + " of " + std::to_string(count);
    while (cur > 0) {
      auto at = "entry " + std::to_string(cur) + ": ";
      if (reached[cur])
        return at + "reached twice";
      reached[cur] = true;
      auto e = entry(cur);
      auto hash = get32(e);
      if (hash < 0 || static_cast<uint32_t>(hash) % slots != i)
        return at + "its hash is not of slot " + std::to_string(i);
      auto phys = get64(e + 4);
      if (phys < 0 || phys >= log_extent)
        return at + "offset " + std::to_string(phys)
               + " is outside the commit log";
      auto prev = static_cast<uint32_t>(get32(e + 16));
      if (prev >= cur)
        return at + "points forward to entry " + std::to_string(prev);
      cur = prev;
    }
  }
  for (uint32_t k = 1; k < ucount; ++k)
    if (!reached[k])
      return "entry " + std::to_string(k) + " is reached from no slot";
  return {};
}

} // namespace rmq::storage
