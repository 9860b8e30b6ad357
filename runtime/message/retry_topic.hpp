// The names of a consumer group's retry and dead-letter topics (RocketMQ
// MixAll.RETRY_GROUP_TOPIC_PREFIX / DLQ_GROUP_TOPIC_PREFIX).
#pragma once

#include <string>
#include <string_view>

namespace rmq {

constexpr std::string_view retry_group_topic_prefix = "%RETRY%";
constexpr std::string_view dlq_group_topic_prefix = "%DLQ%";

/// `%RETRY%<group>`: where a group's failed messages come back.
inline std::string retry_topic_of(std::string_view group) {
  return std::string{retry_group_topic_prefix} + std::string{group};
}

/// `%DLQ%<group>`: where they end after the last retry.
inline std::string dlq_topic_of(std::string_view group) {
  return std::string{dlq_group_topic_prefix} + std::string{group};
}

/// Returns whether `topic` is some group's retry topic.
inline bool is_retry_topic(std::string_view topic) {
  return topic.substr(0, retry_group_topic_prefix.size())
         == retry_group_topic_prefix;
}

} // namespace rmq
