// A pull's stored bytes into what a consumer's listener gets (RocketMQ
// MessageDecoder.decodes + PullAPIWrapper.processPullResult, without the
// tag re-check: see runtime/subscription_expression.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/broker_pull.hpp"
#include "messages/consumer.hpp"

namespace rmq {

/// RocketMQ's default limit for an inflated body (maxMessageSize, 4 MiB).
constexpr size_t default_max_body = 4 * 1024 * 1024;

/// The messages of a pull from `broker_name`: every record decoded (body
/// CRC checked), a COMPRESSED body inflated, properties split into the
/// fields, the user's own and the reserved ones. Nothing for a pull that
/// found nothing. corrupt_data for a damaged buffer or compressed body,
/// message_illegal for a body inflating past `max_body`: a bad record
/// fails the whole pull, never yields a half message.
caf::expected<std::vector<received_message>>
decode_pulled(const pull_message_result& res, const std::string& broker_name,
              size_t max_body = default_max_body);

/// One stored record (a check-back's half message) from `broker_name`,
/// decoded as decode_pulled decodes each (body CRC checked); bytes after
/// it are ignored. corrupt_data unless `record` starts with a whole,
/// intact record.
caf::expected<received_message>
decode_record(std::string_view record, const std::string& broker_name,
              size_t max_body = default_max_body);

/// A retried message arrives on `%RETRY%<group>`; the listener sees the
/// topic it was first sent to (RocketMQ resetRetryAndNamespace): sets
/// `topic` to RETRY_TOPIC when the message came on `group`'s retry topic.
void reset_retry_topic(received_message& msg, const std::string& group);

} // namespace rmq
