#include "runtime/storage/segment_scan.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "runtime/message/byte_coding.hpp"
#include "runtime/message/log_format.hpp"

namespace rmq::storage {

namespace {

// A blank marker is valid only where it names the exact rest of the segment.
bool valid_blank(const char* data, size_t size, size_t pos) {
  return pos + end_of_file_min_blank <= size
         && get_be32(data + pos + 4) == blank_magic
         && get_be32(data + pos) == size - pos;
}

bool valid_record(const char* data, size_t size, int64_t base, size_t pos,
                  bool check_crc, record_view& rec) {
  return decode_record(data + pos, size - pos, rec, check_crc)
           == decode_status::ok
         && rec.phys_offset == base + static_cast<int64_t>(pos)
         && sane_header(rec);
}

// Next position >= from whose byte is `c`, else `size`.
size_t next_byte(const char* data, size_t size, size_t from, char c) {
  if (from >= size)
    return size;
  auto p = static_cast<const char*>(memchr(data + from, c, size - from));
  return p ? static_cast<size_t>(p - data) : size;
}

} // namespace

size_t find_next_record(const char* data, size_t size, int64_t base,
                        size_t from) {
  // Every magic starts with 0xDA (records) or 0xCB (blank) at pos + 4, and
  // memchr runs through zeros and garbage at memory speed.
  constexpr char rec_lead = static_cast<char>(message_magic_v1 >> 24);
  constexpr char blank_lead = static_cast<char>(blank_magic >> 24);
  static_assert((message_magic_v2 >> 24) == (message_magic_v1 >> 24));
  auto next_rec = next_byte(data, size, from + 4, rec_lead);
  auto next_blank = next_byte(data, size, from + 4, blank_lead);
  while (true) {
    auto m = std::min(next_rec, next_blank);
    if (m >= size)
      return size;
    auto pos = m - 4;
    record_view rec;
    if (m == next_blank) {
      if (valid_blank(data, size, pos))
        return pos;
      next_blank = next_byte(data, size, m + 1, blank_lead);
    } else {
      if (valid_record(data, size, base, pos, true, rec))
        return pos;
      next_rec = next_byte(data, size, m + 1, rec_lead);
    }
  }
}

segment_scan scan_segment(const char* data, size_t size, int64_t base,
                          bool check_crc, bool past_zeros,
                          const scan_handler& f,
                          const damage_handler& on_damage) {
  segment_scan res;
  size_t pos = 0;
  while (pos < size) {
    record_view rec;
    if (valid_record(data, size, base, pos, check_crc, rec)) {
      ++res.records;
      f(rec, base + static_cast<int64_t>(pos), true);
      pos += static_cast<size_t>(rec.total_size);
      res.valid_end = pos;
      continue;
    }
    if (valid_blank(data, size, pos)) {
      res.blank = true;
      res.valid_end = size;
      return res;
    }
    bool zeros = size - pos >= 8 && get_be64(data + pos) == 0;
    if (zeros && !past_zeros)
      return res; // the end of the data
    auto phys = base + static_cast<int64_t>(pos);
    corruption bad{base, phys, 0,
                   describe_damage(data + pos, size - pos, phys)};
    auto next = find_next_record(data, size, base, pos + 1);
    bad.length = static_cast<int64_t>(next - pos);
    if (on_damage)
      on_damage(bad);
    if (next >= size) {
      res.trailing = std::move(bad);
      return res;
    }
    // A record whose header still decodes keeps its place in its queue,
    // so that reading it answers "corrupt" instead of skipping it.
    if (decode_record(data + pos, next - pos, rec, false) == decode_status::ok
        && rec.phys_offset == phys && sane_header(rec)
        && pos + static_cast<size_t>(rec.total_size) == next)
      f(rec, phys, false);
    res.damage.push_back(std::move(bad));
    pos = next;
  }
  return res;
}

log_verdict judge_log(const std::vector<segment_scan>& scans) {
  log_verdict res;
  res.last_valid = scans.size();
  for (size_t i = 0; i < scans.size(); ++i)
    if (scans[i].records > 0 || scans[i].blank)
      res.last_valid = i;
  for (size_t i = 0; i < scans.size(); ++i) {
    auto& sc = scans[i];
    for (auto& bad : sc.damage)
      res.corruptions.push_back(bad);
    bool followed = res.last_valid < scans.size() && i < res.last_valid;
    if (sc.trailing && followed)
      res.corruptions.push_back(*sc.trailing);
    else if (sc.trailing && res.torn_tail_offset < 0)
      res.torn_tail_offset = sc.trailing->offset;
  }
  return res;
}

} // namespace rmq::storage
