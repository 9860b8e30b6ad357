// The broker's retry / dead-letter path (RocketMQ CONSUMER_SEND_MSG_BACK,
// AbstractSendMessageProcessor#consumerSendMsgBack): a consumer hands back
// a message it failed to consume, and the broker stores a copy into the
// group's retry topic (with a delay level) or, after too many attempts,
// into its dead-letter topic. Implemented in
// actors/broker/processor/send_back_processor.*.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"

namespace rmq {

/// One send-back (RocketMQ ConsumerSendMsgBackRequestHeader).
struct consumer_send_back_request {
  /// Commit-log offset of the message being handed back.
  int64_t offset = 0;
  /// The consumer group; its retry topic is `%RETRY%<group>`, its
  /// dead-letter topic `%DLQ%<group>`.
  std::string group;
  /// 0: the broker picks 3 + reconsume times; below 0: straight to the
  /// dead-letter topic.
  int32_t delay_level = 0;
  /// The message's id as the consumer saw it (informational, as in
  /// RocketMQ: the stored copy takes its origin id from the record).
  std::string origin_msg_id;
  /// The message's topic as the consumer saw it (informational).
  std::string origin_topic;
  /// Attempts before the dead-letter topic; -1: the group's (default 16).
  int32_t max_reconsume_times = -1;
  /// The retry topic is created with the unit-mode topic flag.
  bool unit_mode = false;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, consumer_send_back_request& x) {
  return f(caf::meta::type_name("rmq.consumer_send_back_request"), x.offset,
           x.group, x.delay_level, x.origin_msg_id, x.origin_topic,
           x.max_reconsume_times, x.unit_mode);
}

RMQ_DECLARE_MESSAGE(consumer_send_back_request);

/// Interface of the send-back processor.
using send_back_processor_actor = dumpable_actor::extend<
  // Stores the copy; answers ok or an error with RocketMQ's codes
  // (system_error for a missing or corrupt original, no_permission,
  // invalid_parameter, system_busy, service_not_available, ...).
  caf::replies_to<consumer_send_back_request>::with<caf::ok_atom>>;

} // namespace rmq
