#include "runtime/message/message_properties.hpp"

#include <array>
#include <charconv>

#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_record.hpp"

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

/// An open-addressing table of the 51 names, hashed by their length and
/// three characters: the consumer asks for every property of every
/// message it decodes; a scan of the names was a tenth of its decode, an
/// unordered_set (std::hash over every byte, a modulo) still a sixth.
class reserved_name_table {
public:
  reserved_name_table() {
    for (auto name : reserved_properties) {
      auto i = hash(name);
      while (!slots_[i].empty())
        i = (i + 1) % slots_.size();
      slots_[i] = name;
    }
  }

  bool contains(std::string_view x) const noexcept {
    if (x.empty())
      return false;
    for (auto i = hash(x); !slots_[i].empty(); i = (i + 1) % slots_.size())
      if (slots_[i] == x)
        return true;
    return false;
  }

private:
  static size_t hash(std::string_view x) noexcept {
    auto c = [&](size_t i) {
      return static_cast<size_t>(static_cast<unsigned char>(x[i]));
    };
    return (x.size() * 31 + c(0) * 7 + c(x.size() / 2) * 3 + c(x.size() - 1))
           % table_size;
  }

  // A power of two five times the names: probes stay short.
  static constexpr size_t table_size = 256;
  static_assert(table_size > 4 * reserved_properties.size());
  std::array<std::string_view, table_size> slots_{};
};

} // namespace

bool is_reserved_property(std::string_view name) {
  static const reserved_name_table names;
  return names.contains(name);
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
    append_property(result, k, v);
  return result;
}

void set_property(std::string& props, std::string_view key,
                  std::string_view value) {
  std::string result;
  size_t pos = 0;
  while (pos < props.size()) {
    auto end = props.find(property_separator, pos);
    if (end == std::string::npos)
      end = props.size();
    auto pair = std::string_view{props}.substr(pos, end - pos);
    auto sep = pair.find(name_value_separator);
    if (sep == std::string_view::npos || pair.substr(0, sep) != key) {
      result.append(pair);
      result += property_separator;
    }
    pos = end + 1;
  }
  append_property(result, key, value);
  props = std::move(result);
}

bool parse_int64(std::string_view text, int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

} // namespace rmq
