// What a consumer's listener gets (RocketMQ MessageExt), and what a
// producer's request gets back as its reply: its own header so that the
// producer's interface (messages/client/client.hpp) can name it. Its JSON and
// equality are defined in messages/client/consumer.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "caf/meta/type_name.hpp"

#include "messages/common/message_decl.hpp"

namespace rmq {

/// A message as a consumer receives it (RocketMQ MessageExt).
struct received_message {
  std::string topic;
  std::string tags;
  /// Several keys are separated by a space (RocketMQ KEY_SEPARATOR).
  std::string keys;
  /// Inflated when the producer compressed it.
  std::string body;
  /// The user's own properties (those RocketMQ does not reserve).
  std::map<std::string, std::string> properties;
  /// RocketMQ's reserved properties as stored (TAGS, KEYS, UNIQ_KEY,
  /// RETRY_TOPIC, ORIGIN_MESSAGE_ID, ...).
  std::map<std::string, std::string> system_properties;
  /// UNIQ_KEY, else offset_msg_id (RocketMQ MessageClientExt#getMsgId).
  std::string msg_id;
  /// Store host and commit-log offset (RocketMQ offsetMsgId).
  std::string offset_msg_id;
  std::string broker_name;
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  int64_t commit_log_offset = 0;
  int32_t reconsume_times = 0;
  /// Wall-clock ms of the producer's send and of the store's append.
  int64_t born_timestamp = 0;
  int64_t store_timestamp = 0;
  /// "ip:port" of the producer and of the storing broker.
  std::string born_host;
  std::string store_host;
  /// 0: none; 1..18: the DELAY property.
  int32_t delay_level = 0;
  int32_t flag = 0;
  int32_t sys_flag = 0;
  /// The body's size as stored (compressed or not), for flow control.
  int32_t stored_size = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, received_message& x) {
  return f(caf::meta::type_name("rmq.received_message"), x.topic, x.tags,
           x.keys, x.body, x.properties, x.system_properties, x.msg_id,
           x.offset_msg_id, x.broker_name, x.queue_id, x.queue_offset,
           x.commit_log_offset, x.reconsume_times, x.born_timestamp,
           x.store_timestamp, x.born_host, x.store_host, x.delay_level, x.flag,
           x.sys_flag, x.stored_size);
}

RMQ_DECLARE_MESSAGE(received_message);

} // namespace rmq
