// A pull's stored bytes into what a consumer's listener gets (RocketMQ
// MessageDecoder.decodes + PullAPIWrapper.processPullResult, without the
// tag re-check: see runtime/message/subscription_expression.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/broker/pull.hpp"
#include "messages/client/consumer.hpp"

namespace rmq {

/// RocketMQ's default limit for an inflated body (maxMessageSize, 4 MiB).
constexpr size_t default_max_body = 4 * 1024 * 1024;

/// A record a consumer cannot decode: its header holds, so its ids and
/// offsets are known, but its body fails its CRC, inflates past the limit
/// or holds malformed properties. Never handed to a listener: a push
/// consumer sends it to its group's dead-letter queue, a lite pull
/// consumer skips it, each with a WARN (docs/reliability.md,
/// "Undecodable messages").
struct undecodable_message {
  /// The header's fields; no body, tags or properties.
  received_message header;
  std::string why;
};

/// A pull's records as a consumer takes them.
struct pulled_messages {
  /// Every record that decoded, in order.
  std::vector<received_message> messages;
  std::vector<undecodable_message> undecodable;
  /// -1; or the buffer broke off at a record whose header is damaged
  /// (bytes damaged on their way: the broker refuses a record it knows is
  /// damaged), and the records from this queue offset on must be pulled
  /// again; `cut_why` says what was wrong.
  int64_t cut_at = -1;
  std::string cut_why;
};

/// The messages of a pull from `broker_name`: every record decoded (body
/// CRC checked), a COMPRESSED body inflated, properties split into the
/// fields, the user's own and the reserved ones. Nothing for a pull that
/// found nothing. A record whose body cannot be decoded becomes an
/// `undecodable_message`, never a half message; the records after it
/// still decode. corrupt_data only when the first record's header is
/// damaged (nothing of the pull can be used).
caf::expected<pulled_messages>
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
