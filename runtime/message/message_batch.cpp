#include "runtime/message/message_batch.hpp"

#include <cstring>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/crc32.hpp"

namespace rmq {

namespace {

uint32_t crc_of(std::string_view body) {
  return crc32_of(body);
}

caf::error bad_entry(size_t index, size_t pos, const std::string& what) {
  return make_error(errc::message_illegal,
                    "batch entry " + std::to_string(index) + " at byte "
                      + std::to_string(pos) + ": " + what);
}

} // namespace

bool operator==(const batch_entry& x, const batch_entry& y) {
  return x.flag == y.flag && x.body == y.body && x.properties == y.properties;
}

caf::error append_batch_entry(std::string& out, int32_t flag,
                              std::string_view body,
                              std::string_view properties) {
  if (properties.size() > max_batch_properties_size)
    return make_error(errc::invalid_parameter,
                      "properties of " + std::to_string(properties.size())
                        + " bytes exceed "
                        + std::to_string(max_batch_properties_size));
  if (body.size() > INT32_MAX - batch_entry_overhead - properties.size())
    return make_error(errc::invalid_parameter, "the entry is too large");
  auto size = batch_entry_overhead + body.size() + properties.size();
  auto at = out.size();
  out.resize(at + size);
  char* p = out.data() + at;
  put_be32(p, static_cast<uint32_t>(size));
  put_be32(p + 4, 0);
  put_be32(p + 8, crc_of(body));
  put_be32(p + 12, static_cast<uint32_t>(flag));
  put_be32(p + 16, static_cast<uint32_t>(body.size()));
  p += 20;
  if (!body.empty())
    memcpy(p, body.data(), body.size());
  p += body.size();
  put_be16(p, static_cast<uint16_t>(properties.size()));
  p += 2;
  if (!properties.empty())
    memcpy(p, properties.data(), properties.size());
  return caf::none;
}

caf::expected<std::string>
encode_batch(const std::vector<batch_entry>& entries) {
  size_t total = 0;
  for (auto& e : entries)
    total += batch_entry_overhead + e.body.size() + e.properties.size();
  std::string out;
  out.reserve(total);
  for (size_t i = 0; i < entries.size(); ++i)
    if (auto err = append_batch_entry(out, entries[i].flag, entries[i].body,
                                      entries[i].properties))
      return make_error(errc::invalid_parameter, "batch entry "
                                                   + std::to_string(i) + ": "
                                                   + error_detail(err));
  return out;
}

caf::expected<std::vector<batch_entry>> decode_batch(std::string_view buf,
                                                     size_t properties_extra) {
  if (buf.empty())
    return make_error(errc::message_illegal, "empty batch body");
  // Counts the entries first (by their total sizes, checked below), so the
  // vector is allocated once.
  size_t count = 0;
  for (size_t at = 0; at + 4 <= buf.size() && count < max_batch_entries;
       ++count) {
    auto total = static_cast<int32_t>(get_be32(buf.data() + at));
    if (total < static_cast<int32_t>(batch_entry_overhead))
      break;
    at += static_cast<size_t>(total);
  }
  std::vector<batch_entry> result;
  result.reserve(count);
  size_t pos = 0;
  while (pos < buf.size()) {
    auto index = result.size();
    if (index >= max_batch_entries)
      return bad_entry(index, pos,
                       "more than " + std::to_string(max_batch_entries)
                         + " entries");
    auto left = buf.size() - pos;
    if (left < batch_entry_overhead)
      return bad_entry(index, pos,
                       "truncated header (" + std::to_string(left)
                         + " bytes left)");
    const char* p = buf.data() + pos;
    auto total = static_cast<int32_t>(get_be32(p));
    auto magic = get_be32(p + 4);
    auto crc = get_be32(p + 8);
    auto flag = static_cast<int32_t>(get_be32(p + 12));
    auto body_len = static_cast<int32_t>(get_be32(p + 16));
    if (total < static_cast<int32_t>(batch_entry_overhead)
        || static_cast<size_t>(total) > left)
      return bad_entry(index, pos,
                       "total size " + std::to_string(total) + " with "
                         + std::to_string(left) + " bytes left");
    if (magic != 0)
      return bad_entry(index, pos, "bad magic " + std::to_string(magic));
    if (body_len < 0
        || static_cast<size_t>(body_len) + batch_entry_overhead
             > static_cast<size_t>(total))
      return bad_entry(index, pos,
                       "body length " + std::to_string(body_len)
                         + " does not fit total size " + std::to_string(total));
    auto props_at = 20 + static_cast<size_t>(body_len);
    auto props_len = get_be16(p + props_at);
    if (props_len > max_batch_properties_size
        || props_at + 2 + props_len != static_cast<size_t>(total))
      return bad_entry(index, pos,
                       "properties length " + std::to_string(props_len)
                         + " does not match total size "
                         + std::to_string(total));
    batch_entry e;
    e.flag = flag;
    e.body.assign(p + 20, static_cast<size_t>(body_len));
    e.properties.reserve(props_len + properties_extra);
    e.properties.assign(p + props_at + 2, props_len);
    if (crc_of(e.body) != crc)
      return bad_entry(index, pos, "body CRC mismatch");
    e.body_crc = crc;
    result.push_back(std::move(e));
    pos += static_cast<size_t>(total);
  }
  return result;
}

} // namespace rmq
