#include "messages/store/store.hpp"

#include <tuple>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"

namespace rmq {

bool is_stored(const put_result& r) {
  return !r.error
         || (r.phys_offset >= 0 && r.error.category() == errc_category
             && (r.error == errc::flush_disk_timeout
                 || r.error == errc::flush_slave_timeout
                 || r.error == errc::slave_not_available));
}

namespace {

// Bodies and record buffers are bytes, not text: JSON shows their sizes
// (nlohmann::json::dump throws on invalid UTF-8).
std::string ipv4_text(uint32_t ip, uint32_t port) {
  return std::to_string(ip >> 24) + '.' + std::to_string((ip >> 16) & 0xFF)
         + '.' + std::to_string((ip >> 8) & 0xFF) + '.'
         + std::to_string(ip & 0xFF) + ':' + std::to_string(port);
}

nlohmann::json properties_json(const std::string& props) {
  auto result = nlohmann::json::object();
  size_t pos = 0;
  while (pos < props.size()) {
    auto sep = props.find('\x01', pos);
    auto end = props.find('\x02', pos);
    if (end == std::string::npos)
      end = props.size();
    if (sep == std::string::npos || sep > end)
      break;
    result[props.substr(pos, sep - pos)] = props.substr(sep + 1, end - sep - 1);
    pos = end + 1;
  }
  return result;
}

} // namespace

std::string to_string(get_status x) {
  switch (x) {
    case get_status::found:
      return "found";
    case get_status::no_matched_message:
      return "no_matched_message";
    case get_status::offset_found_null:
      return "offset_found_null";
    case get_status::offset_overflow_one:
      return "offset_overflow_one";
    case get_status::offset_overflow_badly:
      return "offset_overflow_badly";
    case get_status::offset_too_small:
      return "offset_too_small";
    case get_status::no_message_in_queue:
      return "no_message_in_queue";
  }
  return "unknown";
}

bool operator==(const store_message& x, const store_message& y) {
  return std::tie(x.topic, x.queue_id, x.flag, x.sys_flag, x.born_timestamp,
                  x.born_ip, x.born_port, x.reconsume_times,
                  x.prepared_transaction_offset, x.body, x.properties)
         == std::tie(y.topic, y.queue_id, y.flag, y.sys_flag, y.born_timestamp,
                     y.born_ip, y.born_port, y.reconsume_times,
                     y.prepared_transaction_offset, y.body, y.properties);
}

void to_json(nlohmann::json& out, const store_message& x) {
  out = nlohmann::json{
    {"topic", x.topic},
    {"queue_id", x.queue_id},
    {"flag", x.flag},
    {"sys_flag", x.sys_flag},
    {"born_timestamp", x.born_timestamp},
    {"born_host", ipv4_text(x.born_ip, x.born_port)},
    {"reconsume_times", x.reconsume_times},
    {"prepared_transaction_offset", x.prepared_transaction_offset},
    {"body_size", x.body.size()},
    {"properties", properties_json(x.properties)},
  };
}

bool operator==(const put_result& x, const put_result& y) {
  return x.error == y.error
         && std::tie(x.queue_offset, x.phys_offset, x.size, x.store_timestamp,
                     x.duplicate)
              == std::tie(y.queue_offset, y.phys_offset, y.size,
                          y.store_timestamp, y.duplicate);
}

void to_json(nlohmann::json& out, const put_result& x) {
  out = nlohmann::json{
    {"error", x.error ? nlohmann::json(describe(x.error)) : nlohmann::json()},
    {"queue_offset", x.queue_offset},
    {"phys_offset", x.phys_offset},
    {"size", x.size},
    {"store_timestamp", x.store_timestamp},
    {"duplicate", x.duplicate},
  };
}

bool operator==(const get_message_request& x, const get_message_request& y) {
  return std::tie(x.topic, x.queue_id, x.offset, x.max_count, x.max_bytes,
                  x.tag_codes)
         == std::tie(y.topic, y.queue_id, y.offset, y.max_count, y.max_bytes,
                     y.tag_codes);
}

void to_json(nlohmann::json& out, const get_message_request& x) {
  out = nlohmann::json{
    {"topic", x.topic},         {"queue_id", x.queue_id},
    {"offset", x.offset},       {"max_count", x.max_count},
    {"max_bytes", x.max_bytes}, {"tag_codes", x.tag_codes},
  };
}

bool operator==(const get_message_result& x, const get_message_result& y) {
  return std::tie(x.status, x.next_begin_offset, x.min_offset, x.max_offset,
                  x.buffer, x.phys_offsets, x.queue_offsets,
                  x.suggest_pulling_from_slave)
         == std::tie(y.status, y.next_begin_offset, y.min_offset, y.max_offset,
                     y.buffer, y.phys_offsets, y.queue_offsets,
                     y.suggest_pulling_from_slave);
}

void to_json(nlohmann::json& out, const get_message_result& x) {
  out = nlohmann::json{
    {"status", to_string(static_cast<get_status>(x.status))},
    {"next_begin_offset", x.next_begin_offset},
    {"min_offset", x.min_offset},
    {"max_offset", x.max_offset},
    {"buffer_size", x.buffer.size()},
    {"phys_offsets", x.phys_offsets},
    {"queue_offsets", x.queue_offsets},
    {"suggest_pulling_from_slave", x.suggest_pulling_from_slave},
  };
}

bool operator==(const get_offset_request& x, const get_offset_request& y) {
  return x.topic == y.topic && x.queue_id == y.queue_id;
}

void to_json(nlohmann::json& out, const get_offset_request& x) {
  out = nlohmann::json{{"topic", x.topic}, {"queue_id", x.queue_id}};
}

bool operator==(const queue_offsets& x, const queue_offsets& y) {
  return x.min_offset == y.min_offset && x.max_offset == y.max_offset;
}

void to_json(nlohmann::json& out, const queue_offsets& x) {
  out = nlohmann::json{{"min_offset", x.min_offset},
                       {"max_offset", x.max_offset}};
}

bool operator==(const search_offset_request& x,
                const search_offset_request& y) {
  return std::tie(x.topic, x.queue_id, x.timestamp)
         == std::tie(y.topic, y.queue_id, y.timestamp);
}

void to_json(nlohmann::json& out, const search_offset_request& x) {
  out = nlohmann::json{
    {"topic", x.topic}, {"queue_id", x.queue_id}, {"timestamp", x.timestamp}};
}

bool operator==(const query_message_request& x,
                const query_message_request& y) {
  return std::tie(x.topic, x.key, x.max_num, x.begin_timestamp, x.end_timestamp)
         == std::tie(y.topic, y.key, y.max_num, y.begin_timestamp,
                     y.end_timestamp);
}

void to_json(nlohmann::json& out, const query_message_request& x) {
  out = nlohmann::json{
    {"topic", x.topic},
    {"key", x.key},
    {"max_num", x.max_num},
    {"begin_timestamp", x.begin_timestamp},
    {"end_timestamp", x.end_timestamp},
  };
}

bool operator==(const query_message_result& x, const query_message_result& y) {
  return x.buffer == y.buffer && x.phys_offsets == y.phys_offsets;
}

void to_json(nlohmann::json& out, const query_message_result& x) {
  out = nlohmann::json{{"buffer_size", x.buffer.size()},
                       {"phys_offsets", x.phys_offsets}};
}

} // namespace rmq
