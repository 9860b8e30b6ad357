// The broker's admin requests over remoting, as mqadmin, the dashboard and
// the exporter send them (RocketMQ's AdminBrokerProcessor): topics
// (UPDATE_AND_CREATE_TOPIC 17, DELETE_TOPIC_IN_BROKER 215,
// GET_ALL_TOPIC_CONFIG 21), subscription groups
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP 200, DELETE_SUBSCRIPTIONGROUP 207,
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG 201) and figures (GET_TOPIC_STATS_INFO
// 202, GET_CONSUME_STATS 208, GET_BROKER_RUNTIME_INFO 28), decoded into
// the typed requests rmq-admin sends and answered in RocketMQ's bodies
// (docs/remoting.md, "Broker admin").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "messages/broker/admin.hpp"
#include "messages/broker/client_manager.hpp"
#include "messages/broker/topics.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// UPDATE_AND_CREATE_TOPIC: CreateTopicRequestHeader (topic, readQueueNums,
/// writeQueueNums, perm, topicFilterType, topicSysFlag, order).
bool decode_update_topic(const remoting_command& cmd, update_topic_request& out,
                         std::string& err);

/// DELETE_TOPIC_IN_BROKER: topic.
bool decode_delete_topic(const remoting_command& cmd,
                         delete_topic_in_broker_request& out, std::string& err);

/// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: the SubscriptionGroupConfig body.
bool decode_update_sub_group(const remoting_command& cmd,
                             update_sub_group_request& out, std::string& err);

/// DELETE_SUBSCRIPTIONGROUP: groupName.
bool decode_delete_sub_group(const remoting_command& cmd,
                             delete_sub_group_request& out, std::string& err);

/// GET_TOPIC_STATS_INFO: topic.
bool decode_topic_stats(const remoting_command& cmd, topic_stats_request& out,
                        std::string& err);

/// GET_CONSUME_STATS: consumerGroup, topic (optional).
bool decode_consume_stats(const remoting_command& cmd,
                          consume_stats_request& out, std::string& err);

/// SubscriptionGroupConfig.
nlohmann::json to_json(const subscription_group_config& g);

/// Bodies of the answers, as RocketMQ's broker writes them: Topic- and
/// SubscriptionGroup wrappers (standard JSON, with 5.x's fields:
/// mappingDataVersion and the empty static-topic mapping tables,
/// forbiddenTable, a group's groupRetryPolicy and attributes);
/// TopicStatsTable and ConsumeStats with MessageQueue objects as map keys,
/// as fastjson writes them (not JSON, but what mqadmin and the dashboard
/// read); KVTable.
std::string topic_configs_body(const topic_config_set& set);
std::string sub_groups_body(const subscription_group_set& set);
std::string topic_stats_body(const topic_stats& stats);
std::string consume_stats_body(const consume_stats& stats);
std::string runtime_info_body(const broker_runtime_info& info);

/// GET_ALL_TOPIC_CONFIG's answer: topic_configs_body with
/// GetAllTopicConfigResponseHeader's `totalTopicNum`.
remoting_command topic_configs_response(const remoting_command& req,
                                        const topic_config_set& set);

/// GET_ALL_SUBSCRIPTIONGROUP_CONFIG's answer: sub_groups_body with
/// GetAllSubscriptionGroupResponseHeader's `totalGroupNum`.
remoting_command sub_groups_response(const remoting_command& req,
                                     const subscription_group_set& set);

} // namespace rmq::remoting
