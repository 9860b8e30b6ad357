#include "runtime/client/received_message.hpp"

#include <charconv>

#include "messages/common/errors.hpp"
#include "runtime/message/body_compression.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/retry_topic.hpp"

namespace rmq {

namespace {

std::string host_of(uint32_t ip, uint32_t port) {
  return ipv4_to_string(ip) + ":" + std::to_string(port);
}

/// The records of one pull mostly share their born and store hosts: the
/// last text of each is kept rather than formatted per message.
struct host_cache {
  uint64_t key = UINT64_MAX;
  std::string text;

  const std::string& operator()(uint32_t ip, uint32_t port) {
    auto k = (static_cast<uint64_t>(ip) << 32) | port;
    if (k != key) {
      key = k;
      text = host_of(ip, port);
    }
    return text;
  }
};

struct decode_context {
  host_cache born;
  host_cache store;
};

int32_t to_int(std::string_view x) {
  int32_t result = 0;
  auto [ptr, ec] = std::from_chars(x.data(), x.data() + x.size(), result);
  return ec == std::errc{} && ptr == x.data() + x.size() ? result : 0;
}

std::string where(const record_view& rec) {
  return "queue " + std::to_string(rec.queue_id) + " offset "
         + std::to_string(rec.queue_offset);
}

// The header's fields: what an undecodable record still tells.
void fill_header(const record_view& rec, const std::string& broker_name,
                 decode_context& ctx, received_message& msg) {
  msg.topic = std::string{rec.topic};
  msg.broker_name = broker_name;
  msg.queue_id = rec.queue_id;
  msg.queue_offset = rec.queue_offset;
  msg.commit_log_offset = rec.phys_offset;
  msg.reconsume_times = rec.reconsume_times;
  msg.born_timestamp = rec.born_timestamp;
  msg.store_timestamp = rec.store_timestamp;
  msg.born_host = ctx.born(rec.born_ip, rec.born_port);
  msg.store_host = ctx.store(rec.store_ip, rec.store_port);
  msg.flag = rec.flag;
  msg.sys_flag = rec.sys_flag;
  msg.stored_size = static_cast<int32_t>(rec.body.size());
  msg.offset_msg_id = encode_offset_msg_id(rec.store_ip, rec.store_port,
                                           rec.phys_offset);
  msg.msg_id = msg.offset_msg_id;
}

caf::expected<received_message>
decode_one(const record_view& rec, const std::string& broker_name,
           size_t max_body, decode_context& ctx) {
  received_message msg;
  fill_header(rec, broker_name, ctx, msg);
  if ((rec.sys_flag & sys_flag::compressed) != 0) {
    auto body = decompress_body(rec.body, max_body);
    if (!body)
      return make_error(static_cast<errc>(body.error().code()),
                        "compressed body at " + where(rec) + ": "
                          + error_detail(body.error()));
    msg.body = std::move(*body);
  } else {
    msg.body = std::string{rec.body};
  }
  // Straight into their maps and fields: no list of pairs in between, no
  // look-ups afterwards (docs/benchmarks.md, "Consumer"). A later
  // duplicate wins, as it did through decode_properties.
  std::string_view uniq;
  auto bad = for_each_property(rec.properties, [&](std::string_view key,
                                                   std::string_view value) {
    if (!is_reserved_property(key)) {
      msg.properties.insert_or_assign(std::string{key}, std::string{value});
      return;
    }
    msg.system_properties.insert_or_assign(std::string{key},
                                           std::string{value});
    if (key == property_tags)
      msg.tags = value;
    else if (key == property_keys)
      msg.keys = value;
    else if (key == property_delay)
      msg.delay_level = to_int(value);
    else if (key == property_uniq_key)
      uniq = value;
  });
  if (bad >= 0)
    return make_error(errc::corrupt_data, "properties at " + where(rec)
                                            + ": malformed property at byte "
                                            + std::to_string(bad));
  if (!uniq.empty())
    msg.msg_id = std::string{uniq};
  return msg;
}

} // namespace

caf::expected<pulled_messages> decode_pulled(const pull_message_result& res,
                                             const std::string& broker_name,
                                             size_t max_body) {
  pulled_messages out;
  if (static_cast<pull_status>(res.status) != pull_status::found)
    return out;
  auto count = res.message_count > 0 ? static_cast<size_t>(res.message_count)
                                     : all_records;
  if (count != all_records)
    out.messages.reserve(count);
  decode_context ctx;
  auto& buf = res.buffer;
  size_t pos = 0;
  int64_t last_offset = -1;
  for (size_t i = 0; i < count && (count != all_records || pos < buf.size());
       ++i) {
    record_view rec;
    auto avail = buf.size() - pos;
    if (decode_record(buf.data() + pos, avail, rec, true)
        == decode_status::ok) {
      if (auto msg = decode_one(rec, broker_name, max_body, ctx)) {
        out.messages.push_back(std::move(*msg));
      } else {
        undecodable_message bad;
        fill_header(rec, broker_name, ctx, bad.header);
        bad.why = describe(msg.error());
        out.undecodable.push_back(std::move(bad));
      }
    } else if (decode_record(buf.data() + pos, avail, rec, false)
               == decode_status::ok) {
      // The header holds: only the body's CRC failed.
      undecodable_message bad;
      fill_header(rec, broker_name, ctx, bad.header);
      bad.why = "body at " + where(rec) + ": "
                + describe_damage(buf.data() + pos, avail, rec.phys_offset);
      out.undecodable.push_back(std::move(bad));
    } else {
      auto why = "record " + std::to_string(i) + ": "
                 + describe_damage(buf.data() + pos, avail,
                                   static_cast<int64_t>(pos));
      if (last_offset < 0)
        return make_error(errc::corrupt_data, std::move(why));
      // Its offset is unknown: the records after it wait for a new pull.
      out.cut_at = last_offset + 1;
      out.cut_why = std::move(why);
      return out;
    }
    last_offset = rec.queue_offset;
    pos += static_cast<size_t>(rec.total_size);
  }
  if (pos != buf.size()) {
    auto why = std::to_string(buf.size() - pos) + " bytes after the last of "
               + std::to_string(count) + " records";
    if (last_offset < 0)
      return make_error(errc::corrupt_data, std::move(why));
    out.cut_at = last_offset + 1;
    out.cut_why = std::move(why);
  }
  return out;
}

caf::expected<received_message> decode_record(std::string_view record,
                                              const std::string& broker_name,
                                              size_t max_body) {
  // The first record; bytes after it are ignored (a reader may hand over
  // more than one record's worth).
  record_view rec;
  if (decode_record(record.data(), record.size(), rec, true)
      != decode_status::ok)
    return make_error(errc::corrupt_data, "no whole record in "
                                            + std::to_string(record.size())
                                            + " bytes");
  decode_context ctx;
  return decode_one(rec, broker_name, max_body, ctx);
}

void reset_retry_topic(received_message& msg, const std::string& group) {
  if (msg.topic != retry_topic_of(group))
    return;
  auto i = msg.system_properties.find(property_retry_topic);
  if (i != msg.system_properties.end() && !i->second.empty())
    msg.topic = i->second;
}

} // namespace rmq
