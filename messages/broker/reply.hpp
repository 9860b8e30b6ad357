// Request-reply between a requesting producer and the broker (RocketMQ
// SEND_REPLY_MESSAGE / _V2, PUSH_REPLY_MESSAGE_TO_CLIENT,
// ReplyMessageRequestHeader): what crosses the network and the reply
// processor's typed interface (actors/broker/processor/reply_processor.*). See
// docs/request-reply.md.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/send.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"

namespace rmq {

/// SEND_REPLY_MESSAGE_V2 (325): a consumer's reply to a request, sent by
/// any producer to `<cluster>_REPLY_TOPIC`. The header is a send's
/// (RocketMQ reuses SendMessageRequestHeader); the producer sends one for
/// every message whose MSG_TYPE is "reply".
struct send_reply_message_request {
  send_message_request request;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, send_reply_message_request& x) {
  return f(caf::meta::type_name("rmq.send_reply_message_request"), x.request);
}

RMQ_DECLARE_MESSAGE(send_reply_message_request);

/// PUSH_REPLY_MESSAGE_TO_CLIENT (326): the broker pushes a reply to the
/// requester's channel (its client heartbeat actor), one-way. The fields
/// of RocketMQ's ReplyMessageRequestHeader plus the body.
struct push_reply_message {
  std::string producer_group;
  std::string topic;
  int32_t queue_id = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  int32_t flag = 0;
  /// Encoded (`k\x01v\x02...`), with CORRELATION_ID, REPLY_TO_CLIENT and
  /// PUSH_REPLY_TIME.
  std::string properties;
  int32_t reconsume_times = 0;
  /// "ip:port" of the replier and of the broker.
  std::string born_host;
  std::string store_host;
  /// Wall-clock ms of the push.
  int64_t store_timestamp = 0;
  /// As sent (compressed when sys_flag says so).
  std::string body;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, push_reply_message& x) {
  return f(caf::meta::type_name("rmq.push_reply_message"), x.producer_group,
           x.topic, x.queue_id, x.sys_flag, x.born_timestamp, x.flag,
           x.properties, x.reconsume_times, x.born_host, x.store_host,
           x.store_timestamp, x.body);
}

RMQ_DECLARE_MESSAGE(push_reply_message);

/// Interface of the reply processor.
using reply_processor_actor = dumpable_actor::extend<
  // Stores the reply (storeReplyMessageEnable) through the send
  // processor and pushes it to the requester's channel; answers the
  // store's send_result (or, when not stored, one with msg id "0").
  // system_error naming the requester when it is not online.
  caf::replies_to<send_reply_message_request>::with<send_result>>;

/// The part of a broker a producer sends replies to: a client_broker_actor
/// of a real broker casts to it (stub brokers of tests need not have it).
using reply_broker_actor = caf::typed_actor<
  caf::replies_to<send_reply_message_request>::with<send_result>>;

} // namespace rmq
