#include "runtime/message/delay_levels.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/real_topic_message.hpp"
#include "runtime/message/send_checks.hpp"

namespace rmq {

namespace {

int64_t unit_ms(char unit) {
  switch (unit) {
    case 's':
      return 1'000;
    case 'm':
      return 60'000;
    case 'h':
      return 3'600'000;
    case 'd':
      return 86'400'000;
    default:
      return 0;
  }
}

} // namespace

caf::expected<delay_table> parse_delay_levels(std::string_view text) {
  delay_table result;
  auto bad = [&](std::string_view token) {
    return make_error(errc::invalid_parameter,
                      "messageDelayLevel: '" + std::string{token}
                        + "' is not <number><s|m|h|d>");
  };
  while (!text.empty()) {
    auto start = text.find_first_not_of(' ');
    if (start == std::string_view::npos)
      break;
    text.remove_prefix(start);
    auto token = text.substr(0, text.find(' '));
    text.remove_prefix(token.size());
    if (token.size() < 2)
      return bad(token);
    auto unit = unit_ms(token.back());
    int64_t n = 0;
    auto num = token.substr(0, token.size() - 1);
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (unit == 0 || ec != std::errc{} || end != num.data() + num.size()
        || n < 0 || n > INT64_MAX / unit)
      return bad(token);
    result.push_back(n * unit);
  }
  if (result.empty())
    return make_error(errc::invalid_parameter, "messageDelayLevel is empty");
  return result;
}

int64_t level_delay_ms(const delay_table& delays, int32_t level) {
  if (level < 1 || delays.empty())
    return 0;
  auto i = std::min(static_cast<size_t>(level), delays.size()) - 1;
  return delays[i];
}

int64_t deliver_timestamp(const delay_table& delays, int32_t level,
                          int64_t store_ts) {
  return store_ts + level_delay_ms(delays, level);
}

int32_t stored_delay_level(std::string_view properties) {
  auto text = find_property(properties, property_delay);
  int32_t level = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                   level);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    return 0;
  return std::max(level, 0);
}

caf::expected<int32_t> to_schedule(store_message& msg, int32_t max_level) {
  auto tran = msg.sys_flag & sys_flag::transaction_mask;
  if (tran == sys_flag::transaction_prepared
      || tran == sys_flag::transaction_rollback)
    return 0;
  auto level = delay_level(msg.properties, max_level);
  if (!level || *level <= 0)
    return level;
  if (find_property(msg.properties, property_delay) != std::to_string(*level))
    set_property(msg.properties, property_delay, std::to_string(*level));
  set_property(msg.properties, property_real_topic, msg.topic);
  set_property(msg.properties, property_real_queue_id,
               std::to_string(msg.queue_id));
  msg.topic = schedule_topic;
  msg.queue_id = delay_level_to_queue(*level);
  return level;
}

caf::expected<store_message> from_schedule(const record_view& rec) {
  return real_topic_message(rec, "schedule record", INT32_MAX,
                            {property_delay});
}

} // namespace rmq
