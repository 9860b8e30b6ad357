// The broker's topic config table (RocketMQ TopicConfigManager): its typed
// interface and requests. The table is implemented in
// actors/broker/table/topic_config_table.*; the send processor, the registrar,
// the client manager and rmq-admin reach it through these messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

/// Every topic of a broker with the table's data version (what a broker
/// registers with the NameServers; RocketMQ TopicConfigSerializeWrapper).
struct topic_config_set {
  std::vector<topic_config> topics;
  data_version version;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_config_set& x) {
  return f(caf::meta::type_name("rmq.topic_config_set"), x.topics, x.version);
}

RMQ_DECLARE_MESSAGE(topic_config_set);

/// Looks up the topic of a send, creating it when RocketMQ would
/// (createTopicInSendMessageMethod): `topic` is unknown, auto-create is on
/// and `default_topic` (TBW102) exists and is inheritable; the new topic
/// gets min(`default_queue_nums`, the default topic's queues) queues and
/// the default topic's perm without INHERIT. Answers the config, or
/// topic_not_exist, no_permission (a topic clients may not send to, such
/// as SCHEDULE_TOPIC_XXXX) or invalid_parameter (a bad name).
struct topic_for_send_request {
  std::string topic;
  std::string default_topic = "TBW102";
  int32_t default_queue_nums = 4;
  int32_t topic_sys_flag = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, topic_for_send_request& x) {
  return f(caf::meta::type_name("rmq.topic_for_send_request"), x.topic,
           x.default_topic, x.default_queue_nums, x.topic_sys_flag);
}

RMQ_DECLARE_MESSAGE(topic_for_send_request);

/// Creates the retry topic of a consumer group (`%RETRY%<group>`, RocketMQ
/// createTopicInSendMessageBackMethod) or, with `dlq`, its dead-letter
/// topic (`%DLQ%<group>`) if missing; answers its config, or
/// invalid_parameter for a bad group, queue count (1..1024) or perm.
struct group_topic_request {
  std::string group;
  int32_t queue_nums = 1;
  int32_t perm = 6;
  bool dlq = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_topic_request& x) {
  return f(caf::meta::type_name("rmq.group_topic_request"), x.group,
           x.queue_nums, x.perm, x.dlq);
}

RMQ_DECLARE_MESSAGE(group_topic_request);

/// Interface of the topic config table. Every change bumps the data version
/// and is persisted (config/topics.json, atomically) before it is answered;
/// a watcher added with (subscribe_atom, actor) gets
/// (caf::put_atom, topic_config_set), all topics with the new version,
/// after each change (nothing at subscription: subscribe, then get_atom),
/// which is how the registrar re-registers at once.
using topic_config_table_actor = dumpable_actor::extend<
  // One topic's config, or topic_not_exist.
  caf::replies_to<caf::get_atom, std::string>::with<topic_config>,
  // Every topic and the data version.
  caf::replies_to<caf::get_atom>::with<topic_config_set>,
  // Creates or updates a topic (UPDATE_AND_CREATE_TOPIC); answers the new
  // data version. Invalid names and queue counts are refused.
  caf::replies_to<caf::put_atom, topic_config>::with<data_version>,
  // Deletes a topic (DELETE_TOPIC_IN_BROKER); unknown topics succeed.
  caf::replies_to<caf::delete_atom, std::string>::with<data_version>,
  caf::replies_to<topic_for_send_request>::with<topic_config>,
  caf::replies_to<group_topic_request>::with<topic_config>,
  // Adds a watcher of changes (monitored: dropped when it exits).
  caf::reacts_to<caf::subscribe_atom, caf::actor>,
  // A slave takes its master's topics and data version whole.
  caf::reacts_to<sync_atom, topic_config_set>,
  // To itself: saves again after a failed save.
  caf::reacts_to<save_atom>>;

} // namespace rmq
