// A broker's remoting port against frames as RocketMQ producers and
// consumers write them (our C++ remoting client): sends in all three
// header forms (10 full names, 310 one-letter, 320 batch), pulls that
// return the stored records byte for byte and a held pull woken by a
// send, consumer offsets, queue offsets; a client's identity on its
// connection, with what the broker asks it for an admin; and a message
// sent over remoting read over CAF and the other way round.
#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/remoting/client_manage_codec.hpp"
#include "runtime/remoting/namesrv_body.hpp"
#include "runtime/remoting/remoting_client.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"
#include "tests/system/remoting_call.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::remoting;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicRemoting";

struct remoting_broker {
  temp_dir dir;
  namesrv_process ns = start_namesrv();
  broker_process broker;
  remote_client client;
  broker_actor front;

  remoting_broker() {
    broker = start_broker_node(one_broker(ns, dir.path() + "/store"));
    REQUIRE_NE(broker.remoting_port, 0);
    front = connect_broker(client, broker.port);
    create_topic(client, front, topic, 1);
  }

  remoting_client connect() {
    remoting_client c;
    REQUIRE_MESSAGE(c.connect("127.0.0.1", broker.remoting_port), c.error());
    return c;
  }
};

remoting_command send_v2(const std::string& body, const std::string& uniq) {
  remoting_command req;
  req.code = request_code::send_message_v2;
  req.language = "JAVA";
  req.ext_fields
    = {{"a", "PG_REMOTING"},
       {"b", topic},
       {"c", "TBW102"},
       {"d", "4"},
       {"e", "0"},
       {"f", "0"},
       {"g", "1795935527487"},
       {"h", "0"},
       {"i", encode_properties({{"UNIQ_KEY", uniq}, {"TAGS", "TagA"}})}};
  req.body = body;
  return req;
}

remoting_command pull_from(int64_t offset, int64_t suspend_ms = 0) {
  remoting_command req;
  req.code = request_code::pull_message;
  req.ext_fields = {{"consumerGroup", "CG_REMOTING"},
                    {"topic", topic},
                    {"queueId", "0"},
                    {"queueOffset", std::to_string(offset)},
                    {"maxMsgNums", "32"},
                    {"sysFlag", suspend_ms > 0 ? "2" : "0"},
                    {"commitOffset", "0"},
                    {"suspendTimeoutMillis", std::to_string(suspend_ms)},
                    {"subscription", "*"},
                    {"subVersion", "1"}};
  return req;
}

// The bodies of a pull answer's records.
std::vector<std::string> bodies_of(const remoting_command& res) {
  pull_message_result r;
  r.buffer = res.body;
  // RocketMQ's answer has no count: walk the records' total sizes.
  for (size_t at = 0; at + 4 <= r.buffer.size(); ++r.message_count) {
    auto size = get_be32(r.buffer.data() + at);
    REQUIRE_GT(size, 0u);
    at += size;
  }
  return pulled_bodies(r);
}

} // namespace

TEST_SUITE("system.broker.remoting") {
  TEST_CASE("sends in the three header forms, pulled back as stored") {
    remoting_broker b;
    auto c = b.connect();
    auto res = c.call(send_v2("one", "UNIQ-1"), 10s);
    REQUIRE_MESSAGE(res, c.error());
    REQUIRE_EQ(res->code, response_code::success);
    CHECK_EQ(*res->field("queueId"), "0");
    CHECK_EQ(*res->field("queueOffset"), "0");
    CHECK_EQ(*res->field("transactionId"), "UNIQ-1");
    CHECK_EQ(res->field("msgId")->size(), 32u);
    // SEND_MESSAGE with full names, in the binary header.
    remoting_command v1;
    v1.code = request_code::send_message;
    v1.serialization = serialize_type::rocketmq;
    v1.ext_fields
      = {{"producerGroup", "PG_REMOTING"},
         {"topic", topic},
         {"defaultTopic", "TBW102"},
         {"defaultTopicQueueNums", "4"},
         {"queueId", "0"},
         {"sysFlag", "0"},
         {"bornTimestamp", "1"},
         {"flag", "0"},
         {"properties", encode_properties({{"UNIQ_KEY", "UNIQ-2"}})}};
    v1.body = "two";
    res = c.call(v1, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::success);
    CHECK_EQ(res->serialization, serialize_type::rocketmq);
    CHECK_EQ(*res->field("queueOffset"), "1");
    // A batch of three.
    std::vector<batch_entry> entries;
    for (auto body : {"three", "four", "five"}) {
      batch_entry e;
      e.body = body;
      e.properties
        = encode_properties({{"UNIQ_KEY", std::string{"B-"} + body}});
      entries.push_back(e);
    }
    auto batch = send_v2("", "");
    batch.code = request_code::send_batch_message;
    batch.ext_fields["i"] = "";
    batch.ext_fields["m"] = "true";
    batch.body = *encode_batch(entries);
    res = c.call(batch, 10s);
    REQUIRE(res);
    REQUIRE_EQ(res->code, response_code::success);
    CHECK_EQ(*res->field("queueOffset"), "2");
    CHECK_EQ(std::count(res->field("msgId")->begin(),
                        res->field("msgId")->end(), ','),
             2);
    REQUIRE(wait_readable(b.client, b.front, topic, 0, 5));
    res = c.call(pull_from(0), 10s);
    REQUIRE(res);
    REQUIRE_EQ(res->code, response_code::success);
    CHECK_EQ(*res->field("nextBeginOffset"), "5");
    CHECK_EQ(*res->field("maxOffset"), "5");
    CHECK_EQ(bodies_of(*res),
             std::vector<std::string>{"one", "two", "three", "four", "five"});
    // The same bytes a CAF pull gets: records as stored.
    pull_message_request caf_pull;
    caf_pull.consumer_group = "CG_REMOTING";
    caf_pull.topic = topic;
    auto direct = b.client.ask<pull_message_result>(b.front, caf_pull);
    REQUIRE(direct);
    CHECK_EQ(direct->buffer, res->body);
    // At the end: PULL_NOT_FOUND; past it: PULL_OFFSET_MOVED.
    res = c.call(pull_from(5), 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::pull_not_found);
    res = c.call(pull_from(99), 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::pull_offset_moved);
    // A header without its topic.
    auto bad = send_v2("x", "U");
    bad.ext_fields.erase("b");
    res = c.call(bad, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::system_error);
    CHECK_EQ(res->remark,
             std::optional<std::string>{"the custom field <b> is null"});
  }

  TEST_CASE("a held pull is woken by a send; CAF and remoting interoperate") {
    remoting_broker b;
    auto consumer = b.connect();
    auto producer = b.connect();
    // Nothing there: the pull is held.
    REQUIRE(consumer.send([] {
      auto req = pull_from(0, 20000);
      req.opaque = 7001;
      return req;
    }()));
    // A CAF producer's message wakes it.
    auto sent = send_plain(b.client, b.front, topic, "from CAF", 0);
    REQUIRE_MESSAGE(sent, describe(sent.error()));
    auto res = consumer.receive(15s);
    REQUIRE_MESSAGE(res, consumer.error());
    CHECK_EQ(res->opaque, 7001);
    REQUIRE_EQ(res->code, response_code::success);
    CHECK_EQ(bodies_of(*res), std::vector<std::string>{"from CAF"});
    // A remoting producer's message, read over CAF.
    auto r = producer.call(send_v2("from remoting", "UNIQ-R"), 10s);
    REQUIRE(r);
    REQUIRE_EQ(r->code, response_code::success);
    REQUIRE(wait_readable(b.client, b.front, topic, 0, 2));
    CHECK_EQ(pull_all(b.client, b.front, topic, 0),
             std::vector<std::string>{"from CAF", "from remoting"});
  }

  TEST_CASE("consumer offsets and queue offsets") {
    remoting_broker b;
    auto c = b.connect();
    for (int i = 0; i < 3; ++i)
      REQUIRE(
        c.call(send_v2("m" + std::to_string(i), "U" + std::to_string(i)), 10s));
    REQUIRE(wait_readable(b.client, b.front, topic, 0, 3));
    auto call = [&](int32_t code, std::map<std::string, std::string> fields) {
      return remoting_call(c, code, std::move(fields));
    };
    auto res = call(request_code::query_consumer_offset,
                    {{"consumerGroup", "CG_NEW"},
                     {"topic", topic},
                     {"queueId", "0"},
                     {"setZeroIfNotFound", "false"}});
    CHECK_EQ(res.code, response_code::query_not_found);
    CHECK_EQ(res.remark, std::optional<std::string>{
                           "Not found, V3_0_6_SNAPSHOT maybe this group "
                           "consumer boot first"});
    res = call(request_code::update_consumer_offset,
               {{"consumerGroup", "CG_NEW"},
                {"topic", topic},
                {"queueId", "0"},
                {"commitOffset", "2"}});
    CHECK_EQ(res.code, response_code::success);
    res
      = call(request_code::query_consumer_offset,
             {{"consumerGroup", "CG_NEW"}, {"topic", topic}, {"queueId", "0"}});
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(*res.field("offset"), "2");
    res = call(request_code::get_max_offset,
               {{"topic", topic}, {"queueId", "0"}});
    CHECK_EQ(*res.field("offset"), "3");
    res = call(request_code::get_min_offset,
               {{"topic", topic}, {"queueId", "0"}});
    CHECK_EQ(*res.field("offset"), "0");
    res = call(request_code::search_offset_by_timestamp,
               {{"topic", topic}, {"queueId", "0"}, {"timestamp", "0"}});
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(*res.field("offset"), "0");
    res = call(request_code::get_earliest_msg_storetime,
               {{"topic", topic}, {"queueId", "0"}});
    CHECK_EQ(res.code, response_code::success);
    CHECK_GT(std::stoll(*res.field("timestamp")), 0);
    res = call(9999, {});
    CHECK_EQ(res.code, response_code::request_code_not_supported);
  }

  TEST_CASE("a message found by its offsetMsgId and by its key") {
    remoting_broker b;
    auto c = b.connect();
    auto send = send_v2("keyed", "UNIQ-K");
    send.ext_fields["i"] = encode_properties(
      {{"UNIQ_KEY", "UNIQ-K"}, {"KEYS", "order-7"}, {"TAGS", "TagA"}});
    auto res = c.call(send, 10s);
    REQUIRE(res);
    REQUIRE_EQ(res->code, response_code::success);
    // The offsetMsgId names the broker's remoting address, where
    // RocketMQ's tools look it up.
    auto id = decode_offset_msg_id(*res->field("msgId"));
    REQUIRE(id);
    CHECK_EQ(id->port, b.broker.remoting_port);
    remoting_command view;
    view.code = request_code::view_message_by_id;
    view.ext_fields["offset"] = std::to_string(id->offset);
    res = c.call(view, 10s);
    REQUIRE(res);
    REQUIRE_EQ(res->code, response_code::success);
    CHECK_EQ(bodies_of(*res), std::vector<std::string>{"keyed"});
    view.ext_fields["offset"] = "999999999";
    res = c.call(view, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::system_error);
    CHECK_EQ(res->remark, std::optional<std::string>{
                            "can not find message by the offset, 999999999"});
    remoting_command query;
    query.code = request_code::query_message;
    query.ext_fields = {{"topic", topic},
                        {"key", "order-7"},
                        {"maxNum", "32"},
                        {"beginTimestamp", "0"},
                        {"endTimestamp", "9223372036854775807"}};
    REQUIRE(wait_until(
      [&] {
        res = c.call(query, 10s);
        return res && res->code == response_code::success;
      },
      5s));
    CHECK_EQ(bodies_of(*res), std::vector<std::string>{"keyed"});
    query.ext_fields["key"] = "no-such-key";
    res = c.call(query, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::query_not_found);
  }

  TEST_CASE("a client known by its heartbeat until its connection closes; "
            "its group's members told of changes") {
    remoting_broker b;
    auto heartbeat = [](const std::string& client_id) {
      client_heartbeat hb;
      hb.client_id = client_id;
      consumer_data data;
      data.group_name = "CG_HB";
      data.subscriptions.push_back({topic, "*", "TAG", {}, {}, 1});
      hb.consumers.push_back(data);
      remoting_command req;
      req.code = request_code::heart_beat;
      req.language = "JAVA";
      req.body = heartbeat_json(hb).dump();
      return req;
    };
    auto members = [&](remoting_client& c) {
      remoting_command req;
      req.code = request_code::get_consumer_list_by_group;
      req.ext_fields["consumerGroup"] = "CG_HB";
      auto res = c.call(req, 10s);
      REQUIRE_MESSAGE(res, c.error());
      if (res->code != response_code::success)
        return std::vector<std::string>{};
      return nlohmann::json::parse(res->body)["consumerIdList"]
        .get<std::vector<std::string>>();
    };
    auto first = b.connect();
    auto res = first.call(heartbeat("10.0.0.1@first"), 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::success);
    auto other = b.connect();
    CHECK_EQ(members(other), std::vector<std::string>{"10.0.0.1@first"});
    // A second member: the first is told on its own connection.
    auto second = b.connect();
    res = second.call(heartbeat("10.0.0.2@second"), 10s);
    REQUIRE(res);
    auto told = first.receive(10s);
    REQUIRE_MESSAGE(told, first.error());
    CHECK_EQ(told->code, request_code::notify_consumer_ids_changed);
    CHECK(told->is_oneway());
    CHECK_EQ(*told->field("consumerGroup"), "CG_HB");
    CHECK_EQ(members(other),
             (std::vector<std::string>{"10.0.0.1@first", "10.0.0.2@second"}));
    // mqadmin consumerConnection: each member with its connection's
    // address and language.
    auto conns = remoting_call(other,
                               request_code::get_consumer_connection_list,
                               {{"consumerGroup", "CG_HB"}});
    REQUIRE_EQ(conns.code, response_code::success);
    auto cc = nlohmann::json::parse(conns.body);
    REQUIRE_EQ(cc["connectionSet"].size(), 2u);
    CHECK_EQ(cc["connectionSet"][0]["language"], "JAVA");
    CHECK_EQ(cc["connectionSet"][0]["clientAddr"].get<std::string>().rfind(
               "127.0.0.1:", 0),
             0u);
    CHECK(cc["subscriptionTable"].contains(topic));
    CHECK_EQ(cc["messageModel"], "CLUSTERING");
    // mqadmin consumerStatus (GET_CONSUMER_RUNNING_INFO): the broker asks
    // the member on its own connection and hands its answer back.
    auto running_info = [&](const std::string& client_id) {
      remoting_command ask;
      ask.code = request_code::get_consumer_running_info;
      ask.language = "JAVA";
      ask.opaque = 7001;
      ask.ext_fields = {{"consumerGroup", "CG_HB"},
                        {"clientId", client_id},
                        {"jstackEnable", "false"}};
      REQUIRE(other.send(ask));
    };
    // What the broker asks the member (past any notification before it).
    auto asked_of = [](remoting_client& c) {
      for (;;) {
        auto cmd = c.receive(10s);
        REQUIRE_MESSAGE(cmd, c.error());
        if (cmd->code != request_code::notify_consumer_ids_changed)
          return *cmd;
      }
    };
    running_info("10.0.0.2@second");
    auto asked = asked_of(second);
    CHECK_EQ(asked.code, request_code::get_consumer_running_info);
    CHECK_FALSE(asked.is_oneway());
    CHECK_FALSE(asked.is_response());
    CHECK_EQ(*asked.field("consumerGroup"), "CG_HB");
    CHECK_EQ(*asked.field("clientId"), "10.0.0.2@second");
    auto info = make_response(asked, response_code::success);
    info.body = R"({"properties":{"consumerGroup":"CG_HB"},"jstack":"x"})";
    REQUIRE(second.send(info));
    auto relayed = other.receive(10s);
    REQUIRE_MESSAGE(relayed, other.error());
    CHECK_EQ(relayed->opaque, 7001);
    CHECK_EQ(relayed->code, response_code::success);
    CHECK_EQ(relayed->body, info.body);
    // The member's refusal, in its own words.
    running_info("10.0.0.2@second");
    asked = asked_of(second);
    auto refusal = make_response(asked, response_code::system_error,
                                 "The Consumer Group <CG_HB> not exist in "
                                 "this consumer");
    REQUIRE(second.send(refusal));
    relayed = other.receive(10s);
    REQUIRE_MESSAGE(relayed, other.error());
    CHECK_EQ(relayed->code, response_code::system_error);
    CHECK_EQ(relayed->remark, refusal.remark);
    // An answer to nothing asked (a stale opaque) is dropped.
    REQUIRE(second.send(info));
    // A client that is not a member of the group.
    auto nobody = remoting_call(other, request_code::get_consumer_running_info,
                                {{"consumerGroup", "CG_HB"},
                                 {"clientId", "10.0.0.9@nobody"}});
    CHECK_EQ(nobody.code, response_code::system_error);
    CHECK_EQ(nobody.remark,
             std::optional<std::string>{
               "The Consumer <CG_HB> <10.0.0.9@nobody> not online"});
    // Queue locks for an orderly member.
    remoting_command lock;
    lock.code = request_code::lock_batch_mq;
    lock.body = R"({"consumerGroup":"CG_HB","clientId":"10.0.0.2@second",)"
                R"("mqSet":[{"topic":")"
                + topic + R"(","brokerName":"broker-a","queueId":0}]})";
    res = second.call(lock, 10s);
    REQUIRE(res);
    REQUIRE_EQ(res->code, response_code::success);
    CHECK_EQ(nlohmann::json::parse(res->body)["lockOKMQSet"].size(), 1u);
    // The first is asked, and its connection closes before it answers:
    // the admin hears so in callConsumer's words, not a timeout.
    running_info("10.0.0.1@first");
    asked = asked_of(first);
    CHECK_EQ(asked.code, request_code::get_consumer_running_info);
    // The first closes its connection: gone at once, no expiry wait.
    first = remoting_client{};
    relayed = other.receive(30s);
    REQUIRE_MESSAGE(relayed, other.error());
    CHECK_EQ(relayed->code, response_code::system_error);
    auto why = relayed->remark.value_or("");
    CHECK_EQ(
      why.rfind("invoke consumer <CG_HB> <10.0.0.1@first> Exception: ", 0), 0u);
    CHECK_NE(why.find("the client's connection closed"), std::string::npos);
    REQUIRE(wait_until(
      [&] {
        return members(other) == std::vector<std::string>{"10.0.0.2@second"};
      },
      10s));
    // UNREGISTER_CLIENT takes the second out while it stays connected.
    remoting_command unreg;
    unreg.code = request_code::unregister_client;
    unreg.ext_fields = {{"clientID", "10.0.0.2@second"},
                        {"consumerGroup", "CG_HB"}};
    res = second.call(unreg, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::success);
    CHECK(members(other).empty());
    conns = remoting_call(other, request_code::get_consumer_connection_list,
                          {{"consumerGroup", "CG_HB"}});
    CHECK_EQ(conns.code, response_code::consumer_not_online);
    CHECK_EQ(conns.remark, std::optional<std::string>{
                             "the consumer group[CG_HB] not online"});
    // A heartbeat that is no HeartbeatData.
    remoting_command junk;
    junk.code = request_code::heart_beat;
    junk.body = "{oops";
    res = other.call(junk, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::system_error);
  }

  TEST_CASE("topics, groups and figures as mqadmin and the dashboard ask "
            "for them") {
    remoting_broker b;
    auto c = b.connect();
    auto call = [&](int32_t code, std::map<std::string, std::string> fields,
                    std::string body = {}) {
      return remoting_call(c, code, std::move(fields), std::move(body));
    };
    // mqadmin updateTopic.
    auto res = call(request_code::update_and_create_topic,
                    {{"topic", "TopicAdmin"},
                     {"defaultTopic", "TBW102"},
                     {"readQueueNums", "2"},
                     {"writeQueueNums", "2"},
                     {"perm", "6"},
                     {"topicFilterType", "SINGLE_TAG"},
                     {"topicSysFlag", "0"},
                     {"order", "false"}});
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_all_topic_config, {});
    REQUIRE_EQ(res.code, response_code::success);
    auto topics = nlohmann::json::parse(res.body);
    CHECK_EQ(topics["topicConfigTable"]["TopicAdmin"]["writeQueueNums"], 2);
    CHECK(topics["dataVersion"].contains("counter"));
    // mqadmin getBrokerConfig: RocketMQ's names, the running values.
    res = call(request_code::get_broker_config, {});
    REQUIRE_EQ(res.code, response_code::success);
    auto props = parse_properties_text(res.body);
    CHECK_EQ(props["brokerName"], "broker-a");
    CHECK_EQ(props["listenPort"], std::to_string(b.broker.remoting_port));
    CHECK_EQ(props["cafListenPort"], std::to_string(b.broker.port));
    CHECK_EQ(props["flushDiskType"], "ASYNC_FLUSH");
    CHECK_EQ(props["brokerRole"], "ASYNC_MASTER");
    // updateBrokerConfig: read at start, so refused with the keys named.
    res = call(request_code::update_broker_config, {},
               "autoCreateTopicEnable=false\n");
    CHECK_EQ(res.code, response_code::system_error);
    CHECK_NE(res.remark.value_or("").find("autoCreateTopicEnable"),
             std::string::npos);
    REQUIRE(c.call(send_v2("x", "U-A"), 10s));
    // Topic stats: MessageQueue objects as keys, as fastjson writes them.
    res = call(request_code::get_topic_stats_info, {{"topic", topic}});
    REQUIRE_EQ(res.code, response_code::success);
    CHECK_NE(res.body.find(R"({"offsetTable":{{"brokerName":"broker-a",)"
                           R"("queueId":0,"topic":"TopicRemoting"}:{)"),
             std::string::npos);
    CHECK_NE(res.body.find(R"("maxOffset":1,"minOffset":0})"),
             std::string::npos);
    res = call(request_code::get_topic_stats_info, {{"topic", "NoSuchTopic"}});
    CHECK_EQ(res.code, response_code::topic_not_exist);
    // A subscription group, its consume stats, then gone.
    res = call(request_code::update_and_create_subscriptiongroup, {},
               R"({"groupName":"CG_ADMIN","consumeEnable":true,)"
               R"("retryMaxTimes":5,"retryQueueNums":1})");
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_all_subscriptiongroup_config, {});
    auto groups = nlohmann::json::parse(res.body);
    CHECK_EQ(groups["subscriptionGroupTable"]["CG_ADMIN"]["retryMaxTimes"], 5);
    res = call(request_code::update_consumer_offset,
               {{"consumerGroup", "CG_ADMIN"},
                {"topic", topic},
                {"queueId", "0"},
                {"commitOffset", "1"}});
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_consume_stats,
               {{"consumerGroup", "CG_ADMIN"}, {"topic", topic}});
    REQUIRE_EQ(res.code, response_code::success);
    CHECK_EQ(res.body.rfind(R"({"consumeTps":)", 0), 0u);
    CHECK_NE(res.body.find(R"("brokerOffset":1,"consumerOffset":1,)"),
             std::string::npos);
    res = call(request_code::delete_subscriptiongroup,
               {{"groupName", "CG_ADMIN"}});
    CHECK_EQ(res.code, response_code::success);
    // Runtime figures (mqadmin brokerStatus, the exporter).
    res = call(request_code::get_broker_runtime_info, {});
    REQUIRE_EQ(res.code, response_code::success);
    CHECK(
      nlohmann::json::parse(res.body)["table"].contains("msgPutTotalTodayNow"));
    res = call(request_code::delete_topic_in_broker, {{"topic", "TopicAdmin"}});
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_all_topic_config, {});
    CHECK_FALSE(nlohmann::json::parse(res.body)["topicConfigTable"].contains(
      "TopicAdmin"));
    // Bad input.
    res = call(request_code::update_and_create_subscriptiongroup, {}, "[]");
    CHECK_EQ(res.code, response_code::system_error);
    res = call(request_code::update_and_create_topic, {{"topic", "T"}});
    CHECK_EQ(res.code, response_code::system_error);
  }
}
