#include "runtime/remoting/client_manage_codec.hpp"

#include <utility>

#include "runtime/message/log_format.hpp"
#include "runtime/remoting/client_request_headers.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::remoting {

namespace {

using json = nlohmann::json;

// A JSON body, or false with `err` set.
bool parse_body(const remoting_command& cmd, json& out, std::string& err) {
  out = json::parse(cmd.body, nullptr, false);
  if (out.is_discarded() || !out.is_object()) {
    err = "the body is no JSON object";
    return false;
  }
  return true;
}

std::string text_of(const json& x, const char* key) {
  auto i = x.find(key);
  return i != x.end() && i->is_string() ? i->get<std::string>() : std::string{};
}

// RocketMQ's enums by name; an unknown one reads as the default.
template <class Enum>
void enum_of(const json& x, const char* key, Enum& out) {
  auto i = x.find(key);
  if (i != x.end() && i->is_string())
    from_json(*i, out);
}

subscription_data subscription_of(const json& x) {
  subscription_data out;
  out.topic = text_of(x, "topic");
  if (auto s = text_of(x, "subString"); !s.empty())
    out.sub_string = s;
  if (auto t = text_of(x, "expressionType"); !t.empty())
    out.expression_type = t;
  if (auto i = x.find("tagsSet"); i != x.end() && i->is_array())
    for (auto& tag : *i)
      if (tag.is_string())
        out.tags_set.push_back(tag.get<std::string>());
  if (auto i = x.find("codeSet"); i != x.end() && i->is_array())
    for (auto& code : *i)
      if (code.is_number_integer())
        out.code_set.push_back(code.get<int32_t>());
  if (auto i = x.find("subVersion"); i != x.end() && i->is_number())
    out.sub_version = i->get<int64_t>();
  return out;
}

json queue_json(const client_queue& q) {
  return {
    {"topic", q.topic}, {"brokerName", q.broker_name}, {"queueId", q.queue_id}};
}

// The lock bodies' consumerGroup, clientId and mqSet.
template <class Request>
bool decode_lock_body(const remoting_command& cmd, Request& out,
                      std::string& err) {
  json body;
  if (!parse_body(cmd, body, err))
    return false;
  out.group = text_of(body, "consumerGroup");
  out.client_id = text_of(body, "clientId");
  if (out.group.empty()) {
    err = "the body has no consumerGroup";
    return false;
  }
  if (auto i = body.find("mqSet"); i != body.end() && i->is_array())
    for (auto& q : *i) {
      if (!q.is_object())
        continue;
      client_queue mq;
      mq.topic = text_of(q, "topic");
      mq.broker_name = text_of(q, "brokerName");
      if (auto id = q.find("queueId"); id != q.end() && id->is_number_integer())
        mq.queue_id = id->get<int32_t>();
      out.queues.push_back(std::move(mq));
    }
  return true;
}

} // namespace

nlohmann::json subscription_json(const subscription_data& s) {
  return {{"classFilterMode", false},
          {"topic", s.topic},
          {"subString", s.sub_string},
          {"tagsSet", s.tags_set},
          {"codeSet", s.code_set},
          {"subVersion", s.sub_version},
          {"expressionType", s.expression_type}};
}

bool decode_heartbeat(const remoting_command& cmd, client_heartbeat& out,
                      std::string& err) {
  json body;
  if (!parse_body(cmd, body, err))
    return false;
  out.client_id = text_of(body, "clientID");
  if (out.client_id.empty()) {
    err = "the heartbeat has no clientID";
    return false;
  }
  if (auto i = body.find("producerDataSet"); i != body.end() && i->is_array())
    for (auto& p : *i)
      if (p.is_object())
        out.producer_groups.push_back(text_of(p, "groupName"));
  if (auto i = body.find("consumerDataSet"); i != body.end() && i->is_array())
    for (auto& c : *i) {
      if (!c.is_object())
        continue;
      consumer_data data;
      data.group_name = text_of(c, "groupName");
      enum_of(c, "consumeType", data.type);
      enum_of(c, "messageModel", data.model);
      enum_of(c, "consumeFromWhere", data.from_where);
      if (auto s = c.find("subscriptionDataSet"); s != c.end() && s->is_array())
        for (auto& sub : *s)
          if (sub.is_object())
            data.subscriptions.push_back(subscription_of(sub));
      if (auto u = c.find("unitMode"); u != c.end() && u->is_boolean())
        data.unit_mode = u->get<bool>();
      out.consumers.push_back(std::move(data));
    }
  return true;
}

json heartbeat_json(const client_heartbeat& hb) {
  json out{{"clientID", hb.client_id},
           {"producerDataSet", json::array()},
           {"consumerDataSet", json::array()}};
  for (auto& group : hb.producer_groups)
    out["producerDataSet"].push_back({{"groupName", group}});
  for (auto& c : hb.consumers) {
    json subs = json::array();
    for (auto& s : c.subscriptions)
      subs.push_back(subscription_json(s));
    json data{{"groupName", c.group_name},
              {"subscriptionDataSet", std::move(subs)},
              {"unitMode", c.unit_mode}};
    data["consumeType"] = c.type;
    data["messageModel"] = c.model;
    data["consumeFromWhere"] = c.from_where;
    out["consumerDataSet"].push_back(std::move(data));
  }
  return out;
}

bool decode_unregister_client(const remoting_command& cmd,
                              unregister_client_request& out,
                              std::string& err) {
  header_reader r{cmd};
  out.client_id = r.text("clientID");
  out.producer_group = r.text("producerGroup", false);
  out.consumer_group = r.text("consumerGroup", false);
  return r.done(err);
}

bool decode_consumer_list(const remoting_command& cmd,
                          get_consumer_list_request& out, std::string& err) {
  header_reader r{cmd};
  out.group = r.text("consumerGroup");
  return r.done(err);
}

remoting_command consumer_list_response(const remoting_command& req,
                                        const consumer_list& ids) {
  auto res = make_response(req, response_code::success);
  res.body = json{{"consumerIdList", ids.client_ids}}.dump();
  return res;
}

bool decode_consumer_connection(const remoting_command& cmd,
                                get_consumer_connection_request& out,
                                std::string& err) {
  header_reader r{cmd};
  out.group = r.text("consumerGroup");
  return r.done(err);
}

bool decode_consumer_running_info(const remoting_command& cmd,
                                  get_consumer_running_info_request& out,
                                  std::string& err) {
  header_reader r{cmd};
  out.group = r.text("consumerGroup");
  out.client_id = r.text("clientId");
  out.jstack = r.boolean("jstackEnable");
  return r.done(err);
}

remoting_command
consumer_running_info_request(const get_consumer_running_info_request& x) {
  remoting_command cmd;
  cmd.code = request_code::get_consumer_running_info;
  cmd.ext_fields["consumerGroup"] = x.group;
  cmd.ext_fields["clientId"] = x.client_id;
  cmd.ext_fields["jstackEnable"] = x.jstack ? "true" : "false";
  return cmd;
}

remoting_command
consumer_running_info_response(const remoting_command& req,
                               const consumer_running_info& x) {
  auto res = make_response(req, response_code::success);
  res.body = x.body;
  return res;
}

remoting_command consumer_connection_response(const remoting_command& req,
                                              const consumer_connection& x) {
  auto conns = json::array();
  for (auto& c : x.connections)
    conns.push_back({{"clientId", c.client_id},
                     {"clientAddr", c.client_addr},
                     {"language", c.language},
                     {"version", c.version}});
  auto subs = json::object();
  for (auto& s : x.subscriptions)
    subs[s.topic] = subscription_json(s);
  json body{{"connectionSet", std::move(conns)},
            {"subscriptionTable", std::move(subs)}};
  body["consumeType"] = x.type;
  body["messageModel"] = x.model;
  body["consumeFromWhere"] = x.from_where;
  auto res = make_response(req, response_code::success);
  res.body = body.dump();
  return res;
}

bool decode_lock_batch(const remoting_command& cmd, lock_batch_request& out,
                       std::string& err) {
  return decode_lock_body(cmd, out, err);
}

bool decode_unlock_batch(const remoting_command& cmd, unlock_batch_request& out,
                         std::string& err) {
  return decode_lock_body(cmd, out, err);
}

remoting_command locked_response(const remoting_command& req,
                                 const locked_queues& queues) {
  auto set = json::array();
  for (auto& q : queues.queues)
    set.push_back(queue_json(q));
  auto res = make_response(req, response_code::success);
  res.body = json{{"lockOKMQSet", std::move(set)}}.dump();
  return res;
}

bool decode_send_back(const remoting_command& cmd,
                      consumer_send_back_request& out, std::string& err) {
  header_reader r{cmd};
  out.offset = r.int64("offset");
  out.group = r.text("group");
  out.delay_level = r.int32("delayLevel");
  out.origin_msg_id = r.text("originMsgId", false);
  out.origin_topic = r.text("originTopic", false);
  out.unit_mode = r.boolean("unitMode");
  out.max_reconsume_times = r.int32("maxReconsumeTimes", false, -1);
  return r.done(err);
}

bool decode_end_transaction(const remoting_command& cmd,
                            end_transaction_request& out, std::string& err) {
  header_reader r{cmd};
  out.producer_group = r.text("producerGroup");
  out.tran_state_table_offset = r.int64("tranStateTableOffset");
  out.commit_log_offset = r.int64("commitLogOffset");
  auto type = r.int32("commitOrRollback");
  out.from_transaction_check = r.boolean("fromTransactionCheck");
  out.msg_id = r.text("msgId");
  out.transaction_id = r.text("transactionId", false);
  if (!r.done(err))
    return false;
  switch (type) {
    case sys_flag::transaction_commit:
      out.state = static_cast<uint8_t>(transaction_state::commit);
      return true;
    case sys_flag::transaction_rollback:
      out.state = static_cast<uint8_t>(transaction_state::rollback);
      return true;
    case 0: // TRANSACTION_NOT_TYPE: not known yet
      out.state = static_cast<uint8_t>(transaction_state::unknown);
      return true;
    default:
      err = "the custom field <commitOrRollback> is no transaction type: "
            + std::to_string(type);
      return false;
  }
}

} // namespace rmq::remoting
