// What a broker checks before it stores a sent message (RocketMQ
// AbstractSendMessageProcessor#msgCheck, client Validators#checkMessage,
// TopicValidator), each answering RocketMQ's response code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "runtime/message/message_properties.hpp"

namespace rmq {

/// Largest body of one message and of a whole batch (RocketMQ
/// maxMessageSize, 4 MiB).
constexpr size_t default_max_message_size = 4 * 1024 * 1024;

/// Highest delay level of the default messageDelayLevel table
/// ("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h").
constexpr int32_t default_max_delay_level = 18;

/// Returns whether `topic` is one of RocketMQ's system topics (TBW102,
/// SCHEDULE_TOPIC_XXXX, ..., or `rmq_sys_*`).
bool is_system_topic(std::string_view topic);

/// Returns whether clients may not send to `topic` (TopicValidator
/// NOT_ALLOWED_SEND_TOPIC_SET: schedule, both transaction half topics,
/// TRANS_CHECK_MAX_TIME_TOPIC, SELF_TEST_TOPIC, OFFSET_MOVED_EVENT).
bool is_not_allowed_send_topic(std::string_view topic);

/// The topic of a send: a valid name (invalid_parameter, as check_topic)
/// and not a forbidden system topic (no_permission).
caf::error check_send_topic(const std::string& topic);

/// A body: not empty, at most `max_size` bytes (message_illegal).
caf::error check_body(std::string_view body, size_t max_size);

/// check_properties' two errors (message_illegal).
caf::error properties_too_large(size_t size);
caf::error malformed_property(int64_t at);

/// Encoded properties: at most `max_properties_size` bytes and well formed
/// (message_illegal; RocketMQ maps PROPERTIES_SIZE_EXCEEDED to it too).
caf::error check_properties(std::string_view props);

/// check_properties, handing each pair to `f(name, value)` on the way: a
/// caller that also looks for some keys walks the properties once.
template <class F>
caf::error check_properties(std::string_view props, F&& f) {
  if (props.size() > max_properties_size)
    return properties_too_large(props.size());
  if (auto bad = for_each_property(props, std::forward<F>(f)); bad >= 0)
    return malformed_property(bad);
  return caf::none;
}

/// The delay level of `props` (0 without DELAY): message_illegal if it is
/// not a number or negative; levels above `max_level` become `max_level`,
/// as RocketMQ's broker does.
caf::expected<int32_t> delay_level(std::string_view props, int32_t max_level);

/// delay_level of a DELAY value (`text`, empty without one).
caf::expected<int32_t> parse_delay_level(std::string_view text,
                                         int32_t max_level);

} // namespace rmq
