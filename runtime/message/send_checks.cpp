#include "runtime/message/send_checks.hpp"

#include <array>
#include <charconv>

#include "messages/common/errors.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

namespace {

constexpr std::array<std::string_view, 6> not_allowed_send_topics{
  "SCHEDULE_TOPIC_XXXX",
  "RMQ_SYS_TRANS_HALF_TOPIC",
  "RMQ_SYS_TRANS_OP_HALF_TOPIC",
  "TRANS_CHECK_MAX_TIME_TOPIC",
  "SELF_TEST_TOPIC",
  "OFFSET_MOVED_EVENT",
};

constexpr std::array<std::string_view, 10> system_topics{
  "TBW102",
  "SCHEDULE_TOPIC_XXXX",
  "BenchmarkTest",
  "RMQ_SYS_TRANS_HALF_TOPIC",
  "RMQ_SYS_TRACE_TOPIC",
  "RMQ_SYS_TRANS_OP_HALF_TOPIC",
  "TRANS_CHECK_MAX_TIME_TOPIC",
  "SELF_TEST_TOPIC",
  "OFFSET_MOVED_EVENT",
  "CHECKPOINT_TOPIC",
};

constexpr std::string_view system_topic_prefix = "rmq_sys_";

} // namespace

bool is_system_topic(std::string_view topic) {
  for (auto x : system_topics)
    if (x == topic)
      return true;
  return topic.substr(0, system_topic_prefix.size()) == system_topic_prefix;
}

bool is_not_allowed_send_topic(std::string_view topic) {
  for (auto x : not_allowed_send_topics)
    if (x == topic)
      return true;
  return false;
}

caf::error check_send_topic(const std::string& topic) {
  if (auto err = check_topic(topic))
    return err;
  if (is_not_allowed_send_topic(topic))
    return make_error(errc::no_permission,
                      "sending message to topic " + topic + " is forbidden");
  return caf::none;
}

caf::error check_body(std::string_view body, size_t max_size) {
  if (body.empty())
    return make_error(errc::message_illegal, "the message body is empty");
  if (body.size() > max_size)
    return make_error(errc::message_illegal,
                      "the message body size " + std::to_string(body.size())
                        + " exceeds the maximum " + std::to_string(max_size));
  return caf::none;
}

caf::error properties_too_large(size_t size) {
  return make_error(errc::message_illegal,
                    "properties of " + std::to_string(size) + " bytes exceed "
                      + std::to_string(max_properties_size));
}

caf::error malformed_property(int64_t at) {
  return make_error(errc::message_illegal,
                    "malformed property at byte " + std::to_string(at));
}

caf::error check_properties(std::string_view props) {
  // Walked, not decoded: the check runs for every message of a batch, and
  // needs no list of string pairs.
  return check_properties(props, [](auto, auto) {});
}

caf::expected<int32_t> parse_delay_level(std::string_view text,
                                         int32_t max_level) {
  if (text.empty())
    return 0;
  int32_t level = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                   level);
  if (ec != std::errc{} || end != text.data() + text.size() || level < 0)
    return make_error(errc::message_illegal, "delay level '" + std::string{text}
                                               + "' is not a level 0.."
                                               + std::to_string(max_level));
  return std::min(level, max_level);
}

caf::expected<int32_t> delay_level(std::string_view props, int32_t max_level) {
  return parse_delay_level(find_property(props, property_delay), max_level);
}

} // namespace rmq
