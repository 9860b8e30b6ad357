// What the broker answers admins and clients beyond sends and pulls
// (RocketMQ AdminBrokerProcessor): topic and group updates, per-queue
// offsets and statistics, consumer progress, the broker's runtime figures
// and message lookups. The front actor (messages/broker/broker.hpp) takes them;
// the composite ones are gathered by the admin service
// (actors/broker/node/broker_admin_service.*).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/client_manager.hpp"
#include "messages/broker/topics.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

// -- topics and groups ------------------------------------------------------

/// UPDATE_AND_CREATE_TOPIC (17): answers the new data version.
struct update_topic_request {
  topic_config config;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, update_topic_request& x) {
  return f(caf::meta::type_name("rmq.update_topic_request"), x.config);
}

RMQ_DECLARE_MESSAGE(update_topic_request);

/// DELETE_TOPIC_IN_BROKER (215): answers the data version after it.
struct delete_topic_in_broker_request {
  std::string topic;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, delete_topic_in_broker_request& x) {
  return f(caf::meta::type_name("rmq.delete_topic_in_broker_request"), x.topic);
}

RMQ_DECLARE_MESSAGE(delete_topic_in_broker_request);

/// GET_ALL_TOPIC_CONFIG (21).
struct get_all_topic_config_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_all_topic_config_request&) {
  return f(caf::meta::type_name("rmq.get_all_topic_config_request"));
}

RMQ_DECLARE_MESSAGE(get_all_topic_config_request);

/// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200).
struct update_sub_group_request {
  subscription_group_config config;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, update_sub_group_request& x) {
  return f(caf::meta::type_name("rmq.update_sub_group_request"), x.config);
}

RMQ_DECLARE_MESSAGE(update_sub_group_request);

/// DELETE_SUBSCRIPTIONGROUP (207).
struct delete_sub_group_request {
  std::string group;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, delete_sub_group_request& x) {
  return f(caf::meta::type_name("rmq.delete_sub_group_request"), x.group);
}

RMQ_DECLARE_MESSAGE(delete_sub_group_request);

/// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201).
struct get_all_sub_group_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_all_sub_group_request&) {
  return f(caf::meta::type_name("rmq.get_all_sub_group_request"));
}

RMQ_DECLARE_MESSAGE(get_all_sub_group_request);

// -- lookups ------------------------------------------------------------------

/// GET_EARLIEST_MSG_STORETIME (32): the store timestamp (ms) of the oldest
/// message still in a queue; no_message_in_queue errors when it is empty.
struct earliest_msg_store_time_request {
  std::string topic;
  int32_t queue_id = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, earliest_msg_store_time_request& x) {
  return f(caf::meta::type_name("rmq.earliest_msg_store_time_request"), x.topic,
           x.queue_id);
}

RMQ_DECLARE_MESSAGE(earliest_msg_store_time_request);

/// VIEW_MESSAGE_BY_ID (33): the stored record at a commit-log offset (the
/// offset half of an offsetMsgId), as stored.
struct view_message_request {
  int64_t commit_log_offset = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, view_message_request& x) {
  return f(caf::meta::type_name("rmq.view_message_request"),
           x.commit_log_offset);
}

RMQ_DECLARE_MESSAGE(view_message_request);

// -- statistics -----------------------------------------------------------------

/// GET_TOPIC_STATS_INFO (202).
struct topic_stats_request {
  std::string topic;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_stats_request& x) {
  return f(caf::meta::type_name("rmq.topic_stats_request"), x.topic);
}

RMQ_DECLARE_MESSAGE(topic_stats_request);

/// One queue's offsets and the store time (ms) of its last message (0 when
/// it has none), RocketMQ TopicOffset.
struct queue_stats {
  int32_t queue_id = 0;
  int64_t min_offset = 0;
  int64_t max_offset = 0;
  int64_t last_update_timestamp = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_stats& x) {
  return f(caf::meta::type_name("rmq.queue_stats"), x.queue_id, x.min_offset,
           x.max_offset, x.last_update_timestamp);
}

RMQ_DECLARE_MESSAGE(queue_stats);

/// RocketMQ TopicStatsTable for the queues of one broker.
struct topic_stats {
  std::string topic;
  std::string broker_name;
  std::vector<queue_stats> queues;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_stats& x) {
  return f(caf::meta::type_name("rmq.topic_stats"), x.topic, x.broker_name,
           x.queues);
}

RMQ_DECLARE_MESSAGE(topic_stats);

/// GET_CONSUME_STATS (208): a group's progress on this broker, for one
/// topic or (empty) every topic it has offsets of, including its retry
/// topic.
struct consume_stats_request {
  std::string consumer_group;
  std::string topic;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, consume_stats_request& x) {
  return f(caf::meta::type_name("rmq.consume_stats_request"), x.consumer_group,
           x.topic);
}

RMQ_DECLARE_MESSAGE(consume_stats_request);

/// RocketMQ OffsetWrapper of one queue: where the broker is, where the
/// group is (-1: never committed), and the store time of the message at
/// the group's offset (0: none).
struct queue_progress {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;
  int64_t broker_offset = 0;
  int64_t consumer_offset = -1;
  int64_t last_timestamp = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_progress& x) {
  return f(caf::meta::type_name("rmq.queue_progress"), x.topic, x.broker_name,
           x.queue_id, x.broker_offset, x.consumer_offset, x.last_timestamp);
}

RMQ_DECLARE_MESSAGE(queue_progress);

/// RocketMQ ConsumeStats: per queue, sorted by topic and queue id, and the
/// group's pull rate on this broker (messages per second).
struct consume_stats {
  std::vector<queue_progress> queues;
  double consume_tps = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consume_stats& x) {
  return f(caf::meta::type_name("rmq.consume_stats"), x.queues, x.consume_tps);
}

RMQ_DECLARE_MESSAGE(consume_stats);

/// GET_BROKER_RUNTIME_INFO (28).
struct broker_runtime_info_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, broker_runtime_info_request&) {
  return f(caf::meta::type_name("rmq.broker_runtime_info_request"));
}

RMQ_DECLARE_MESSAGE(broker_runtime_info_request);

/// RocketMQ's KVTable of runtime figures, keyed with RocketMQ's names
/// (msgPutTotalTodayNow, putTps, commitLogMaxOffset, flushDiskType, ...).
struct broker_runtime_info {
  std::map<std::string, std::string> table;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_runtime_info& x) {
  return f(caf::meta::type_name("rmq.broker_runtime_info"), x.table);
}

RMQ_DECLARE_MESSAGE(broker_runtime_info);

/// Interface of the admin service: the requests that take several of the
/// broker's actors to answer.
using broker_admin_service_actor = dumpable_actor::extend<
  caf::replies_to<earliest_msg_store_time_request>::with<int64_t>,
  caf::replies_to<topic_stats_request>::with<topic_stats>,
  caf::replies_to<consume_stats_request>::with<consume_stats>,
  caf::replies_to<broker_runtime_info_request>::with<broker_runtime_info>>;

} // namespace rmq
