#include "runtime/message_properties.hpp"

#include <array>
#include <charconv>
#include <unordered_set>

#include "messages/errors.hpp"
#include "runtime/storage/log_format.hpp"
#include "runtime/storage/message_record.hpp"

namespace rmq {

namespace {

// RocketMQ MessageConst.STRING_HASH_SET.
constexpr std::array<std::string_view, 51> reserved_properties{
  "TRACE_ON",
  "MSG_REGION",
  "KEYS",
  "TAGS",
  "WAIT",
  "DELAY",
  "RETRY_TOPIC",
  "REAL_TOPIC",
  "REAL_QID",
  "TRAN_MSG",
  "PGROUP",
  "MIN_OFFSET",
  "MAX_OFFSET",
  "BUYER_ID",
  "ORIGIN_MESSAGE_ID",
  "TRANSFER_FLAG",
  "CORRECTION_FLAG",
  "MQ2_FLAG",
  "RECONSUME_TIME",
  "UNIQ_KEY",
  "MAX_RECONSUME_TIMES",
  "CONSUME_START_TIME",
  "POP_CK",
  "POP_CK_OFFSET",
  "1ST_POP_TIME",
  "TRAN_PREPARED_QUEUE_OFFSET",
  "DUP_INFO",
  "EXTEND_UNIQ_INFO",
  "INSTANCE_ID",
  "CORRELATION_ID",
  "REPLY_TO_CLIENT",
  "TTL",
  "ARRIVE_TIME",
  "PUSH_REPLY_TIME",
  "CLUSTER",
  "MSG_TYPE",
  "INNER_MULTI_QUEUE_OFFSET",
  "TIMER_DELAY_MS",
  "TIMER_DELAY_SEC",
  "TIMER_DELIVER_MS",
  "TIMER_ENQUEUE_MS",
  "TIMER_DEQUEUE_MS",
  "TIMER_ROLL_TIMES",
  "TIMER_OUT_MS",
  "TIMER_DEL_UNIQKEY",
  "TIMER_DELAY_LEVEL",
  "__BORNHOST",
  "BORN_TIMESTAMP",
  "DLQ_ORIGIN_TOPIC",
  "DLQ_ORIGIN_MESSAGE_ID",
  "__CRC32#",
};

} // namespace

bool is_reserved_property(std::string_view name) {
  // A hash set: the consumer asks for every property of every message it
  // decodes, and a scan of the 51 names was a tenth of its decode.
  static const std::unordered_set<std::string_view> names{
    reserved_properties.begin(), reserved_properties.end()};
  return names.count(name) > 0;
}

caf::expected<property_list> decode_properties(std::string_view props) {
  property_list result;
  auto bad = for_each_property(props, [&](auto name, auto value) {
    result.emplace_back(std::string{name}, std::string{value});
  });
  if (bad >= 0)
    return make_error(errc::message_illegal,
                      "malformed property at byte " + std::to_string(bad));
  return result;
}

std::string encode_properties(const property_list& xs) {
  std::string result;
  for (auto& [k, v] : xs)
    storage::append_property(result, k, v);
  return result;
}

void set_property(std::string& props, std::string_view key,
                  std::string_view value) {
  std::string result;
  size_t pos = 0;
  while (pos < props.size()) {
    auto end = props.find(storage::property_separator, pos);
    if (end == std::string::npos)
      end = props.size();
    auto pair = std::string_view{props}.substr(pos, end - pos);
    auto sep = pair.find(storage::name_value_separator);
    if (sep == std::string_view::npos || pair.substr(0, sep) != key) {
      result.append(pair);
      result += storage::property_separator;
    }
    pos = end + 1;
  }
  storage::append_property(result, key, value);
  props = std::move(result);
}

bool parse_int64(std::string_view text, int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

} // namespace rmq
