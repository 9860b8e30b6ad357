// Name and argument checks shared by NameServer, broker and clients
// (RocketMQ client/Validators and TopicValidator).
#pragma once

#include <string>

#include "caf/error.hpp"

namespace rmq {

constexpr size_t max_topic_length = 127;
constexpr size_t max_group_length = 120;
constexpr size_t max_broker_name_length = 127;
/// Sanity bound on topic names a NameServer stores or looks up; far above
/// the longest RocketMQ produces (a retry topic of a 255-character group).
constexpr size_t max_registered_topic_length = 1024;

/// Topic: 1..127 chars of [%|a-zA-Z0-9_-]. Returns an invalid_parameter
/// error that says what is wrong, or none.
caf::error check_topic(const std::string& topic);

/// A topic name as a broker registers it or a client looks it up: RocketMQ's
/// NameServer checks no names there, and brokers announce topics that
/// `check_topic` refuses (one named after the broker, host name dots
/// included; retry topics of long groups; 5.x pop retry topics such as
/// `%RETRY%GID_1+TopicA`). Refuses only what cannot be a name: empty, over
/// `max_registered_topic_length`, or with control characters.
caf::error check_registered_topic(const std::string& topic);

/// Consumer/producer group: 1..120 chars of [%|a-zA-Z0-9_-].
caf::error check_group(const std::string& group);

/// Broker or cluster name: 1..127 chars of [%|a-zA-Z0-9_.-].
caf::error check_broker_name(const std::string& name, const char* what);

/// "host:port" with a non-empty host and a port in 1..65535.
caf::error check_address(const std::string& addr, const char* what);

/// KV namespace or key: non-empty, at most 255 chars, no control chars.
caf::error check_kv_name(const std::string& name, const char* what);

/// Largest KV config value. RocketMQ has no limit, but the NameServer
/// rewrites its whole KV file on every change: one 100 MB value made each
/// later update cost ~0.5 s. Order configs ("brokerA:8;brokerB:8") are tiny.
constexpr size_t max_kv_value_size = 64 * 1024;

/// KV value: at most `max_kv_value_size` bytes (empty is fine).
caf::error check_kv_value(const std::string& value);

} // namespace rmq
