// Request-reply messages (RocketMQ MessageUtil.createReplyMessage,
// MixAll.getReplyTopic, the request and reply properties of MessageConst):
// what a consumer calls to answer a request, and the conversions the
// broker and the requester's client use. See docs/request-reply.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "caf/expected.hpp"

#include "messages/broker/reply.hpp"
#include "messages/client/client.hpp"
#include "messages/client/consumer.hpp"

namespace rmq {

/// Matches a reply to its request (a UUID the requester makes).
constexpr char property_correlation_id[] = "CORRELATION_ID";
/// The requester's client id: the broker pushes the reply to it.
constexpr char property_reply_to_client[] = "REPLY_TO_CLIENT";
/// The requester's timeout in ms.
constexpr char property_message_ttl[] = "TTL";
/// "reply" on a reply message: the producer sends it as a reply.
constexpr char property_message_type[] = "MSG_TYPE";
/// Wall-clock ms when the broker pushed the reply.
constexpr char property_push_reply_time[] = "PUSH_REPLY_TIME";
/// The MSG_TYPE value of a reply (MixAll.REPLY_MESSAGE_FLAG).
constexpr char reply_message_flag[] = "reply";

/// Returns `<cluster>_REPLY_TOPIC`, where the replies of a cluster go
/// (every broker creates it at start, one queue).
std::string reply_topic(std::string_view cluster);

/// Returns whether `msg` is a reply (MSG_TYPE "reply"): the producer sends
/// it as SEND_REPLY_MESSAGE.
bool is_reply_message(const client_message& msg);

/// Returns whether `name` is one of the request-reply properties
/// (CORRELATION_ID, REPLY_TO_CLIENT, TTL, MSG_TYPE): reserved, yet a
/// program sends them in the message create_reply_message makes.
bool is_request_reply_property(std::string_view name);

/// Returns the reply to `request` with `body`: to `<cluster>_REPLY_TOPIC`
/// of the request's CLUSTER, MSG_TYPE "reply", CORRELATION_ID,
/// REPLY_TO_CLIENT and TTL copied. message_illegal naming what is
/// missing for a message that is not a request (no CORRELATION_ID,
/// REPLY_TO_CLIENT or CLUSTER). Send it with any producer.
caf::expected<client_message>
create_reply_message(const received_message& request, std::string body);

/// The message a pushed reply carries, as a consumer would get it: the
/// body inflated (message_illegal past `max_body`, corrupt_data for a bad
/// body or properties), properties split into the user's own and the
/// reserved ones.
caf::expected<received_message>
to_received_message(const push_reply_message& push,
                    size_t max_body = 4 * 1024 * 1024);

} // namespace rmq
