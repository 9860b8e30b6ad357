// The broker's admin requests as mqadmin sends them (CreateTopicRequestHeader,
// a SubscriptionGroupConfig body) and the bodies it reads back, map keys
// included in fastjson's form.
#include "runtime/remoting/broker_admin_codec.hpp"

#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/remoting_codes.hpp"
#include "tests/runtime/remoting/json_command.hpp"

using namespace rmq;
using namespace rmq::remoting;
using rmq::test::decoded;

TEST_SUITE("runtime.remoting_broker_admin") {
  TEST_CASE("mqadmin updateTopic's header") {
    auto cmd = decoded(
      R"({"code":17,"language":"JAVA","opaque":3,"flag":0,"version":401,)"
      R"("extFields":{"topic":"T","defaultTopic":"TBW102",)"
      R"("readQueueNums":"8","writeQueueNums":"4","perm":"6",)"
      R"("topicFilterType":"MULTI_TAG","topicSysFlag":"0","order":"true"}})");
    update_topic_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_update_topic(cmd, req, err), err);
    CHECK_EQ(req.config.topic_name, "T");
    CHECK_EQ(req.config.read_queue_nums, 8);
    CHECK_EQ(req.config.write_queue_nums, 4);
    CHECK_EQ(req.config.perm, 6);
    CHECK_EQ(req.config.topic_filter_type, 1);
    CHECK(req.config.order);
    cmd.ext_fields.erase("perm");
    CHECK_FALSE(decode_update_topic(cmd, req, err));
    CHECK_EQ(err, "the custom field <perm> is null");
  }

  TEST_CASE("a subscription group both ways") {
    remoting_command cmd;
    cmd.code = request_code::update_and_create_subscriptiongroup;
    cmd.body = R"({"groupName":"G","consumeEnable":false,"retryMaxTimes":3,)"
               R"("brokerId":1,"consumeBroadcastEnable":"odd"})";
    update_sub_group_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_update_sub_group(cmd, req, err), err);
    CHECK_EQ(req.config.group_name, "G");
    CHECK_FALSE(req.config.consume_enable);
    CHECK_EQ(req.config.retry_max_times, 3);
    CHECK_EQ(req.config.broker_id, 1);
    CHECK(req.config.consume_broadcast_enable); // a wrong type is ignored
    auto body = nlohmann::json::parse(
      sub_groups_body({{req.config}, data_version{1, 2, 3}}));
    CHECK_EQ(body["subscriptionGroupTable"]["G"]["retryMaxTimes"], 3);
    CHECK_EQ(body["subscriptionGroupTable"]["G"]["consumeEnable"], false);
    // RocketMQ 5.x's fields, at their defaults.
    CHECK_EQ(body["subscriptionGroupTable"]["G"]["groupRetryPolicy"],
             nlohmann::json{{"type", "CUSTOMIZED"}});
    CHECK_EQ(body["subscriptionGroupTable"]["G"]["attributes"],
             nlohmann::json::object());
    CHECK_EQ(body["forbiddenTable"], nlohmann::json::object());
    auto answer = sub_groups_response(cmd, {{req.config, req.config},
                                            data_version{1, 2, 3}});
    CHECK_EQ(answer.code, response_code::success);
    CHECK_EQ(answer.ext_fields["totalGroupNum"], "2");
    CHECK_EQ(nlohmann::json::parse(answer.body)["dataVersion"]["counter"], 3);
    cmd.body = R"({"consumeEnable":true})";
    CHECK_FALSE(decode_update_sub_group(cmd, req, err));
    CHECK_EQ(err, "the body is no SubscriptionGroupConfig");
  }

  TEST_CASE("topic stats and consume stats keyed by MessageQueue objects") {
    topic_stats ts;
    ts.topic = "T";
    ts.broker_name = "b";
    ts.queues = {{0, 0, 5, 77}, {1, 2, 9, 88}};
    CHECK_EQ(topic_stats_body(ts),
             R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:)"
             R"({"lastUpdateTimestamp":77,"maxOffset":5,"minOffset":0},)"
             R"({"brokerName":"b","queueId":1,"topic":"T"}:)"
             R"({"lastUpdateTimestamp":88,"maxOffset":9,"minOffset":2}}})");
    consume_stats cs;
    cs.consume_tps = 1.5;
    cs.queues = {{"T", "b", 0, 5, 3, 99}};
    CHECK_EQ(consume_stats_body(cs),
             R"({"consumeTps":1.5,"offsetTable":{{"brokerName":"b",)"
             R"("queueId":0,"topic":"T"}:{"brokerOffset":5,)"
             R"("consumerOffset":3,"lastTimestamp":99,"pullOffset":3}}})");
    CHECK_EQ(topic_stats_body({}), R"({"offsetTable":{}})");
  }

  TEST_CASE("all topic configs with 5.x's mapping fields and the count") {
    topic_config tc;
    tc.topic_name = "T";
    topic_config_set set{{tc}, data_version{0, 1795935358330, 7}};
    auto body = nlohmann::json::parse(topic_configs_body(set));
    CHECK_EQ(body["dataVersion"]["counter"], 7);
    CHECK_EQ(body["mappingDataVersion"], body["dataVersion"]);
    CHECK_EQ(body["topicQueueMappingDetailMap"], nlohmann::json::object());
    CHECK_EQ(body["topicQueueMappingInfoMap"], nlohmann::json::object());
    CHECK(body["topicConfigTable"].contains("T"));
    remoting_command req;
    req.code = request_code::get_all_topic_config;
    req.opaque = 9;
    auto answer = topic_configs_response(req, set);
    CHECK_EQ(answer.code, response_code::success);
    CHECK_EQ(answer.opaque, 9);
    CHECK_EQ(answer.ext_fields["totalTopicNum"], "1");
    CHECK_EQ(answer.body, topic_configs_body(set));
    CHECK_EQ(topic_configs_response(req, {}).ext_fields["totalTopicNum"], "0");
  }
}
