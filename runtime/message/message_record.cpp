#include "runtime/message/message_record.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/crc32.hpp"
#include "runtime/message/log_format.hpp"

namespace rmq {

namespace {

inline uint32_t body_crc(std::string_view body) {
  return crc32_of(body);
}

size_t host_size(int32_t flags, int32_t v6_bit) {
  return (flags & v6_bit) ? 20 : 8;
}

} // namespace

size_t record_size(const store_message& msg) {
  auto topic_len_size = msg.topic.size() > 127 ? 2 : 1;
  return record_fixed_size_v1 - 1 + topic_len_size + msg.body.size()
         + msg.topic.size() + msg.properties.size();
}

void encode_record(const store_message& msg, const record_stamp& st,
                   char* out) {
  bool v2 = msg.topic.size() > 127;
  // Always IPv4 hosts: the v6 bits are cleared from the sender's flags.
  auto flags = msg.sys_flag
               & ~(sys_flag::born_host_v6 | sys_flag::store_host_v6);
  auto p = out + 4;
  put_be32(p, v2 ? message_magic_v2 : message_magic_v1), p += 4;
  auto crc = msg.body_crc >= 0 ? static_cast<uint32_t>(msg.body_crc)
                               : body_crc(msg.body);
  put_be32(p, crc), p += 4;
  put_be32(p, static_cast<uint32_t>(msg.queue_id)), p += 4;
  put_be32(p, static_cast<uint32_t>(msg.flag)), p += 4;
  put_be64(p, static_cast<uint64_t>(st.queue_offset)), p += 8;
  put_be64(p, static_cast<uint64_t>(st.phys_offset)), p += 8;
  put_be32(p, static_cast<uint32_t>(flags)), p += 4;
  put_be64(p, static_cast<uint64_t>(msg.born_timestamp)), p += 8;
  put_be32(p, msg.born_ip), p += 4;
  put_be32(p, msg.born_port), p += 4;
  put_be64(p, static_cast<uint64_t>(st.store_timestamp)), p += 8;
  put_be32(p, st.store_ip), p += 4;
  put_be32(p, st.store_port), p += 4;
  put_be32(p, static_cast<uint32_t>(msg.reconsume_times)), p += 4;
  put_be64(p, static_cast<uint64_t>(msg.prepared_transaction_offset));
  p += 8;
  put_be32(p, static_cast<uint32_t>(msg.body.size())), p += 4;
  memcpy(p, msg.body.data(), msg.body.size()), p += msg.body.size();
  if (v2) {
    put_be16(p, static_cast<uint16_t>(msg.topic.size())), p += 2;
  } else {
    *p++ = static_cast<char>(msg.topic.size());
  }
  memcpy(p, msg.topic.data(), msg.topic.size()), p += msg.topic.size();
  put_be16(p, static_cast<uint16_t>(msg.properties.size())), p += 2;
  memcpy(p, msg.properties.data(), msg.properties.size());
  p += msg.properties.size();
  // Last, so that a torn write never shows a plausible length.
  put_be32(out, static_cast<uint32_t>(p - out));
}

decode_status decode_record(const char* data, size_t available,
                            record_view& out, bool check_crc) {
  if (available < 8)
    return available == 0 ? decode_status::end_of_data : decode_status::corrupt;
  auto total = static_cast<int32_t>(get_be32(data));
  auto magic = get_be32(data + 4);
  if (magic == blank_magic)
    return decode_status::blank;
  if (total == 0 && magic == 0)
    return decode_status::end_of_data;
  if (magic != message_magic_v1 && magic != message_magic_v2)
    return decode_status::corrupt;
  if (total < static_cast<int32_t>(record_fixed_size_v1)
      || static_cast<size_t>(total) > available)
    return decode_status::corrupt;
  auto end = data + total;
  auto p = data + 8;
  out.total_size = total;
  out.magic = magic;
  out.body_crc = get_be32(p), p += 4;
  out.queue_id = static_cast<int32_t>(get_be32(p)), p += 4;
  out.flag = static_cast<int32_t>(get_be32(p)), p += 4;
  out.queue_offset = static_cast<int64_t>(get_be64(p)), p += 8;
  out.phys_offset = static_cast<int64_t>(get_be64(p)), p += 8;
  out.sys_flag = static_cast<int32_t>(get_be32(p)), p += 4;
  out.born_timestamp = static_cast<int64_t>(get_be64(p)), p += 8;
  if ((out.sys_flag & sys_flag::born_host_v6) == 0) {
    out.born_ip = get_be32(p);
    out.born_port = get_be32(p + 4);
  }
  p += host_size(out.sys_flag, sys_flag::born_host_v6);
  // Fixed part with the (possibly larger) hosts, before the body length.
  if (p + 8 + host_size(out.sys_flag, sys_flag::store_host_v6) + 12 + 4 > end)
    return decode_status::corrupt;
  out.store_timestamp = static_cast<int64_t>(get_be64(p)), p += 8;
  if ((out.sys_flag & sys_flag::store_host_v6) == 0) {
    out.store_ip = get_be32(p);
    out.store_port = get_be32(p + 4);
  }
  p += host_size(out.sys_flag, sys_flag::store_host_v6);
  out.reconsume_times = static_cast<int32_t>(get_be32(p)), p += 4;
  out.prepared_transaction_offset = static_cast<int64_t>(get_be64(p)), p += 8;
  auto body_len = get_be32(p);
  p += 4;
  if (body_len > static_cast<size_t>(end - p))
    return decode_status::corrupt;
  out.body = {p, body_len};
  p += body_len;
  size_t topic_len = 0;
  if (magic == message_magic_v2) {
    if (end - p < 2)
      return decode_status::corrupt;
    topic_len = get_be16(p), p += 2;
  } else {
    if (end - p < 1)
      return decode_status::corrupt;
    topic_len = static_cast<uint8_t>(*p++);
  }
  if (topic_len > static_cast<size_t>(end - p))
    return decode_status::corrupt;
  out.topic = {p, topic_len};
  p += topic_len;
  if (end - p < 2)
    return decode_status::corrupt;
  size_t props_len = get_be16(p);
  p += 2;
  // The recomputed length must match the stored one exactly.
  if (props_len != static_cast<size_t>(end - p))
    return decode_status::corrupt;
  out.properties = {p, props_len};
  if (check_crc && body_crc(out.body) != out.body_crc)
    return decode_status::corrupt;
  return decode_status::ok;
}

caf::expected<std::vector<record_view>>
decode_pulled(const get_message_result& res) {
  std::vector<record_view> result;
  size_t pos = 0;
  for (size_t i = 0; i < res.phys_offsets.size(); ++i) {
    record_view rec;
    auto avail = res.buffer.size() - std::min(pos, res.buffer.size());
    auto phys = res.phys_offsets[i];
    if (decode_record(res.buffer.data() + pos, avail, rec, true)
          != decode_status::ok
        || rec.phys_offset != phys) {
      auto qoff = i < res.queue_offsets.size() ? res.queue_offsets[i] : -1;
      return make_error(
        errc::corrupt_data,
        "queue offset " + std::to_string(qoff) + ": corrupt record at offset "
          + std::to_string(phys) + ": "
          + describe_damage(res.buffer.data() + pos, avail, phys));
    }
    result.push_back(rec);
    pos += static_cast<size_t>(rec.total_size);
  }
  return result;
}

caf::expected<std::vector<record_view>> decode_records(std::string_view buffer,
                                                       size_t count) {
  std::vector<record_view> result;
  if (count != all_records)
    result.reserve(count);
  size_t pos = 0;
  for (size_t i = 0; i < count && (count != all_records || pos < buffer.size());
       ++i) {
    record_view rec;
    auto avail = buffer.size() - pos;
    if (decode_record(buffer.data() + pos, avail, rec, true)
        != decode_status::ok)
      return make_error(errc::corrupt_data,
                        "record " + std::to_string(i)
                          + (count != all_records
                               ? " of " + std::to_string(count)
                               : std::string{})
                          + ": "
                          + describe_damage(buffer.data() + pos, avail,
                                            static_cast<int64_t>(pos)));
    result.push_back(rec);
    pos += static_cast<size_t>(rec.total_size);
  }
  if (pos != buffer.size()) // only when `count` was given
    return make_error(errc::corrupt_data, std::to_string(buffer.size() - pos)
                                            + " bytes after the last of "
                                            + std::to_string(count)
                                            + " records");
  return result;
}

int64_t stored_timestamp(const char* record) {
  auto flags = static_cast<int32_t>(get_be32(record + pos_sys_flag));
  auto pos = pos_born_host + host_size(flags, sys_flag::born_host_v6);
  return static_cast<int64_t>(get_be64(record + pos));
}

std::string_view find_property(std::string_view props, std::string_view key) {
  size_t pos = 0;
  while (pos < props.size()) {
    auto end = props.find(property_separator, pos);
    if (end == std::string_view::npos)
      end = props.size();
    auto entry = props.substr(pos, end - pos);
    if (entry.size() > key.size() && entry.compare(0, key.size(), key) == 0
        && entry[key.size()] == name_value_separator)
      return entry.substr(key.size() + 1);
    pos = end + 1;
  }
  return {};
}

void append_property(std::string& props, std::string_view key,
                     std::string_view value) {
  props.append(key);
  props += name_value_separator;
  props.append(value);
  props += property_separator;
}

int32_t java_hash(std::string_view str) {
  uint32_t h = 0;
  for (auto c : str)
    h = 31 * h + static_cast<uint8_t>(c);
  return static_cast<int32_t>(h);
}

int64_t tags_code(std::string_view tags) {
  return tags.empty() ? 0 : java_hash(tags);
}

bool sane_header(const record_view& rec) {
  return rec.queue_id >= 0 && rec.queue_id <= max_queue_id
         && rec.queue_offset >= 0
         && rec.queue_offset
              <= rec.phys_offset / static_cast<int64_t>(record_fixed_size_v1);
}

std::string describe_damage(const char* data, size_t available, int64_t phys) {
  std::ostringstream out;
  if (available < 8)
    return "truncated record header";
  auto total = static_cast<int32_t>(get_be32(data));
  auto magic = get_be32(data + 4);
  if (magic == blank_magic) {
    out << "blank marker with wrong length " << total;
    return out.str();
  }
  if (total == 0 && magic == 0)
    return "zeros where a record should start";
  if (magic != message_magic_v1 && magic != message_magic_v2) {
    out << "bad magic code 0x" << std::hex << magic;
    return out.str();
  }
  if (total < static_cast<int32_t>(record_fixed_size_v1)
      || static_cast<size_t>(total) > available) {
    out << "impossible total size " << total;
    return out.str();
  }
  record_view rec;
  if (decode_record(data, available, rec, false) != decode_status::ok)
    return "field lengths do not add up to the total size";
  if (rec.phys_offset != phys) {
    out << "record claims phys offset " << rec.phys_offset;
    return out.str();
  }
  if (!sane_header(rec)) {
    out << "impossible queue id " << rec.queue_id << " or queue offset "
        << rec.queue_offset;
    return out.str();
  }
  if (decode_record(data, available, rec, true) != decode_status::ok)
    return "body CRC mismatch";
  return "valid record";
}

} // namespace rmq
