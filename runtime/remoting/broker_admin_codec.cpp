#include "runtime/remoting/broker_admin_codec.hpp"

#include <type_traits>
#include <utility>

#include "runtime/remoting/client_request_headers.hpp"
#include "runtime/remoting/namesrv_body.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::remoting {

namespace {

using json = nlohmann::json;

// A MessageQueue as fastjson writes a map key: its fields sorted.
std::string queue_key(const std::string& topic, const std::string& broker,
                      int32_t queue_id) {
  return json{{"brokerName", broker}, {"queueId", queue_id}, {"topic", topic}}
    .dump();
}

// {"offsetTable":{<queue>:<value>,...}} plus `extra` fields, with object
// keys written as they are.
template <class Rows, class Key, class Value>
std::string offset_table(const Rows& rows, Key key, Value value,
                         const json& extra = json::object()) {
  std::string out = "{";
  for (auto& [k, v] : extra.items())
    out += json(k).dump() + ":" + v.dump() + ",";
  out += "\"offsetTable\":{";
  bool first = true;
  for (auto& row : rows) {
    if (!first)
      out += ",";
    first = false;
    out += key(row) + ":" + value(row).dump();
  }
  return out + "}}";
}

} // namespace

bool decode_update_topic(const remoting_command& cmd, update_topic_request& out,
                         std::string& err) {
  header_reader r{cmd};
  auto& c = out.config;
  c.topic_name = r.text("topic");
  c.read_queue_nums = r.int32("readQueueNums");
  c.write_queue_nums = r.int32("writeQueueNums");
  c.perm = r.int32("perm");
  auto filter = r.text("topicFilterType", false);
  c.topic_filter_type = filter == "MULTI_TAG" ? 1 : 0;
  c.topic_sys_flag = r.int32("topicSysFlag", false);
  c.order = r.boolean("order");
  return r.done(err);
}

bool decode_delete_topic(const remoting_command& cmd,
                         delete_topic_in_broker_request& out,
                         std::string& err) {
  header_reader r{cmd};
  out.topic = r.text("topic");
  return r.done(err);
}

bool decode_update_sub_group(const remoting_command& cmd,
                             update_sub_group_request& out, std::string& err) {
  auto body = json::parse(cmd.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()
      || !body.value("groupName", json{}).is_string()) {
    err = "the body is no SubscriptionGroupConfig";
    return false;
  }
  auto& g = out.config;
  auto get = [&](const char* key, auto& field) {
    auto i = body.find(key);
    using T = std::decay_t<decltype(field)>;
    if (i == body.end())
      return;
    if constexpr (std::is_same_v<T, bool>) {
      if (i->is_boolean())
        field = i->template get<bool>();
    } else if (i->is_number_integer()) {
      field = i->template get<T>();
    }
  };
  g.group_name = body["groupName"].get<std::string>();
  get("consumeEnable", g.consume_enable);
  get("consumeFromMinEnable", g.consume_from_min_enable);
  get("consumeBroadcastEnable", g.consume_broadcast_enable);
  get("consumeMessageOrderly", g.consume_message_orderly);
  get("retryQueueNums", g.retry_queue_nums);
  get("retryMaxTimes", g.retry_max_times);
  get("brokerId", g.broker_id);
  get("whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly);
  get("notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable);
  get("groupSysFlag", g.group_sys_flag);
  get("consumeTimeoutMinute", g.consume_timeout_minute);
  return true;
}

bool decode_delete_sub_group(const remoting_command& cmd,
                             delete_sub_group_request& out, std::string& err) {
  header_reader r{cmd};
  out.group = r.text("groupName");
  return r.done(err);
}

bool decode_topic_stats(const remoting_command& cmd, topic_stats_request& out,
                        std::string& err) {
  header_reader r{cmd};
  out.topic = r.text("topic");
  return r.done(err);
}

bool decode_consume_stats(const remoting_command& cmd,
                          consume_stats_request& out, std::string& err) {
  header_reader r{cmd};
  out.consumer_group = r.text("consumerGroup");
  out.topic = r.text("topic", false);
  return r.done(err);
}

json to_json(const subscription_group_config& g) {
  return {{"groupName", g.group_name},
          {"consumeEnable", g.consume_enable},
          {"consumeFromMinEnable", g.consume_from_min_enable},
          {"consumeBroadcastEnable", g.consume_broadcast_enable},
          {"consumeMessageOrderly", g.consume_message_orderly},
          {"retryQueueNums", g.retry_queue_nums},
          {"retryMaxTimes", g.retry_max_times},
          {"brokerId", g.broker_id},
          {"whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly},
          {"notifyConsumerIdsChangedEnable",
           g.notify_consumer_ids_changed_enable},
          {"groupSysFlag", g.group_sys_flag},
          {"consumeTimeoutMinute", g.consume_timeout_minute},
          // RocketMQ 5.x's fields, at their defaults: we keep no retry
          // policy (CUSTOMIZED: the delay levels) and no group attributes.
          {"groupRetryPolicy", {{"type", "CUSTOMIZED"}}},
          {"attributes", json::object()}};
}

std::string topic_configs_body(const topic_config_set& set) {
  auto out = topic_config_wrapper_json(set.topics, set.version);
  // TopicConfigAndMappingSerializeWrapper (5.x): we have no static topics,
  // so no mappings, and the mappings' version is the table's.
  out["mappingDataVersion"] = to_json(set.version);
  out["topicQueueMappingDetailMap"] = json::object();
  out["topicQueueMappingInfoMap"] = json::object();
  return out.dump();
}

remoting_command topic_configs_response(const remoting_command& req,
                                        const topic_config_set& set) {
  auto out = make_response(req, response_code::success);
  out.ext_fields["totalTopicNum"] = std::to_string(set.topics.size());
  out.body = topic_configs_body(set);
  return out;
}

std::string sub_groups_body(const subscription_group_set& set) {
  auto table = json::object();
  for (auto& g : set.groups)
    table[g.group_name] = to_json(g);
  // SubscriptionGroupWrapper (5.x): no group is forbidden any topic here.
  return json{{"subscriptionGroupTable", std::move(table)},
              {"forbiddenTable", json::object()},
              {"dataVersion", to_json(set.version)}}
    .dump();
}

remoting_command sub_groups_response(const remoting_command& req,
                                     const subscription_group_set& set) {
  auto out = make_response(req, response_code::success);
  out.ext_fields["totalGroupNum"] = std::to_string(set.groups.size());
  out.body = sub_groups_body(set);
  return out;
}

std::string topic_stats_body(const topic_stats& stats) {
  return offset_table(
    stats.queues,
    [&](const queue_stats& q) {
      return queue_key(stats.topic, stats.broker_name, q.queue_id);
    },
    [](const queue_stats& q) {
      return json{{"lastUpdateTimestamp", q.last_update_timestamp},
                  {"maxOffset", q.max_offset},
                  {"minOffset", q.min_offset}};
    });
}

std::string consume_stats_body(const consume_stats& stats) {
  return offset_table(
    stats.queues,
    [](const queue_progress& q) {
      return queue_key(q.topic, q.broker_name, q.queue_id);
    },
    [](const queue_progress& q) {
      // RocketMQ's pullOffset is the larger of the committed offset and
      // where the group last pulled; we keep no separate pull offset, so
      // it is the committed one.
      return json{{"brokerOffset", q.broker_offset},
                  {"consumerOffset", q.consumer_offset},
                  {"lastTimestamp", q.last_timestamp},
                  {"pullOffset", q.consumer_offset}};
    },
    json{{"consumeTps", stats.consume_tps}});
}

std::string runtime_info_body(const broker_runtime_info& info) {
  return kv_table_json(info.table).dump();
}

} // namespace rmq::remoting
