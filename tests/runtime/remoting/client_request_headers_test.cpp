// The broker's client request headers against the frames RocketMQ clients
// send (shared/reference/rocketmq-remoting.md: ali-ons' captured session,
// and SendMessageRequestHeader's full names as the Java client writes them
// with sendSmartMsg=false).
#include "runtime/remoting/client_request_headers.hpp"

#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/runtime/remoting/json_command.hpp"

using namespace rmq;
using namespace rmq::remoting;
using rmq::test::decoded;

TEST_SUITE("runtime.remoting_client_headers") {
  TEST_CASE("ali-ons' SEND_MESSAGE_V2") {
    auto cmd = decoded(
      R"({"code":310,"language":"JAVA","opaque":2,"flag":0,"version":121,)"
      R"("extFields":{"a":"PID_WIRE","b":"TopicTest","c":"TBW102","d":4,)"
      R"("e":0,"f":0,"g":1795935527487,"h":0,)"
      R"("i":"TAGS\u0001TagA\u0002KEYS\u0001k-0\u0002","j":0,"k":false}})",
      "wire-17244-1795935527474-0");
    send_message_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_send(cmd, req, err), err);
    CHECK_EQ(req.producer_group, "PID_WIRE");
    CHECK_EQ(req.topic, "TopicTest");
    CHECK_EQ(req.default_topic, "TBW102");
    CHECK_EQ(req.default_queue_nums, 4);
    CHECK_EQ(req.queue_id, 0);
    CHECK_EQ(req.sys_flag, 0);
    CHECK_EQ(req.born_timestamp, 1795935527487);
    CHECK_EQ(req.flag, 0);
    CHECK_EQ(req.properties, "TAGS\x01TagA\x02KEYS\x01k-0\x02");
    CHECK_EQ(req.reconsume_times, 0);
    CHECK_EQ(req.max_reconsume_times, 16);
    CHECK_FALSE(req.batch);
    CHECK_EQ(req.body, "wire-17244-1795935527474-0");
  }

  TEST_CASE("SEND_MESSAGE with full names, and a batch (320)") {
    remoting_command cmd;
    cmd.code = request_code::send_message;
    cmd.ext_fields
      = {{"producerGroup", "PG"},    {"topic", "%RETRY%CG"},
         {"defaultTopic", "TBW102"}, {"defaultTopicQueueNums", "8"},
         {"queueId", "3"},           {"sysFlag", "1"},
         {"bornTimestamp", "17"},    {"flag", "5"},
         {"reconsumeTimes", "2"},    {"maxReconsumeTimes", "3"}};
    send_message_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_send(cmd, req, err), err);
    CHECK_EQ(req.topic, "%RETRY%CG");
    CHECK_EQ(req.default_queue_nums, 8);
    CHECK_EQ(req.queue_id, 3);
    CHECK_EQ(req.sys_flag, 1);
    CHECK_EQ(req.flag, 5);
    CHECK_EQ(req.reconsume_times, 2);
    CHECK_EQ(req.max_reconsume_times, 3);
    remoting_command batch;
    batch.code = request_code::send_batch_message;
    batch.ext_fields = {{"a", "PG"}, {"b", "T"}, {"c", "TBW102"},
                        {"d", "4"},  {"e", "1"}, {"f", "0"},
                        {"g", "1"},  {"h", "0"}, {"m", "true"}};
    REQUIRE(decode_send(batch, req, err));
    CHECK(req.batch);
  }

  TEST_CASE("a send without a required field or with a word for a number") {
    remoting_command cmd;
    cmd.code = request_code::send_message_v2;
    cmd.ext_fields = {{"a", "PG"}, {"c", "TBW102"}, {"d", "4"}, {"e", "0"},
                      {"f", "0"},  {"g", "1"},      {"h", "0"}};
    send_message_request req;
    std::string err;
    CHECK_FALSE(decode_send(cmd, req, err));
    CHECK_EQ(err, "the custom field <b> is null");
    cmd.ext_fields["b"] = "T";
    cmd.ext_fields["e"] = "zero";
    err.clear();
    CHECK_FALSE(decode_send(cmd, req, err));
    CHECK_EQ(err, "the custom field <e> is no number: zero");
    cmd.ext_fields["e"] = "4294967296";
    err.clear();
    CHECK_FALSE(decode_send(cmd, req, err));
    CHECK_EQ(err, "the custom field <e> is out of the int range");
  }

  TEST_CASE("a send's answer as a Java broker writes it") {
    remoting_command req;
    req.opaque = 2;
    send_result res;
    res.msg_id = "UNIQ1";
    res.offset_msg_id = "7F000001000051AF0000000000000000";
    auto out = send_response(req, res);
    CHECK_EQ(out.code, response_code::success);
    CHECK_EQ(out.opaque, 2);
    CHECK_EQ(out.ext_fields, std::map<std::string, std::string>{
                               {"MSG_REGION", "DefaultRegion"},
                               {"TRACE_ON", "true"},
                               {"msgId", "7F000001000051AF0000000000000000"},
                               {"queueId", "0"},
                               {"queueOffset", "0"},
                               {"transactionId", "UNIQ1"}});
    res.status = static_cast<uint8_t>(send_status::flush_disk_timeout);
    res.msg_id = "U1,U2";
    res.offset_msg_id = "A,B";
    res.queue_offset = 7;
    out = send_response(req, res);
    CHECK_EQ(out.code, response_code::flush_disk_timeout);
    CHECK_EQ(out.ext_fields["msgId"], "A,B");
    CHECK_EQ(out.ext_fields["queueOffset"], "7");
    CHECK_FALSE(out.field("transactionId"));
    CHECK_EQ(out.ext_fields["MSG_REGION"], "DefaultRegion");
    CHECK_EQ(out.ext_fields["TRACE_ON"], "true");
  }

  TEST_CASE("ali-ons' PULL_MESSAGE and the answers to it") {
    auto cmd = decoded(
      R"({"code":11,"language":"JAVA","opaque":15,"flag":0,"version":121,)"
      R"("extFields":{"consumerGroup":"GID_WIRE_17244","topic":"TopicTest",)"
      R"("queueId":0,"queueOffset":0,"maxMsgNums":32,"sysFlag":6,)"
      R"("commitOffset":0,"suspendTimeoutMillis":2000,"subscription":"*",)"
      R"("subVersion":1795935527493}})");
    pull_message_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_pull(cmd, req, err), err);
    CHECK_EQ(req.consumer_group, "GID_WIRE_17244");
    CHECK_EQ(req.topic, "TopicTest");
    CHECK_EQ(req.max_msg_nums, 32);
    CHECK_EQ(req.sys_flag, 6);
    CHECK_EQ(req.suspend_timeout_ms, 2000);
    CHECK_EQ(req.subscription, "*");
    CHECK_EQ(req.sub_version, 1795935527493);
    pull_message_result res;
    res.status = static_cast<uint8_t>(pull_status::found);
    res.next_begin_offset = 1;
    res.max_offset = 1;
    res.buffer = std::string(172, 'r');
    auto out = pull_response(cmd, res);
    CHECK_EQ(out.code, response_code::success);
    CHECK_EQ(out.opaque, 15);
    CHECK_EQ(out.ext_fields["suggestWhichBrokerId"], "0");
    CHECK_EQ(out.ext_fields["nextBeginOffset"], "1");
    CHECK_EQ(out.ext_fields["minOffset"], "0");
    CHECK_EQ(out.ext_fields["maxOffset"], "1");
    CHECK_EQ(out.body.size(), 172u);
    // The remark names the store's GetMessageStatus, as RocketMQ's does.
    CHECK_EQ(out.remark, std::optional<std::string>{"FOUND"});
    auto remark = [&](pull_status status) {
      res.status = static_cast<uint8_t>(status);
      return pull_response(cmd, res).remark.value_or("(none)");
    };
    res.status = static_cast<uint8_t>(pull_status::no_new_msg);
    CHECK_EQ(pull_response(cmd, res).code, response_code::pull_not_found);
    CHECK(pull_response(cmd, res).body.empty());
    CHECK_EQ(remark(pull_status::no_new_msg), "OFFSET_OVERFLOW_ONE");
    res.status = static_cast<uint8_t>(pull_status::no_matched_msg);
    CHECK_EQ(pull_response(cmd, res).code,
             response_code::pull_retry_immediately);
    CHECK_EQ(remark(pull_status::no_matched_msg), "NO_MATCHED_MESSAGE");
    res.status = static_cast<uint8_t>(pull_status::offset_illegal);
    CHECK_EQ(pull_response(cmd, res).code, response_code::pull_offset_moved);
    // Sent on to the end (next 1 = max 1): past it.
    CHECK_EQ(remark(pull_status::offset_illegal), "OFFSET_OVERFLOW_BADLY");
    // Sent on to a start below the end: before it.
    res.min_offset = 1;
    res.max_offset = 5;
    CHECK_EQ(remark(pull_status::offset_illegal), "OFFSET_TOO_SMALL");
    // An empty queue.
    res.min_offset = 0;
    res.max_offset = 0;
    res.next_begin_offset = 0;
    CHECK_EQ(remark(pull_status::no_new_msg), "NO_MESSAGE_IN_QUEUE");
    CHECK_EQ(remark(pull_status::offset_illegal), "OFFSET_OVERFLOW_BADLY");
  }

  TEST_CASE("offset requests as ali-ons sends them") {
    auto cmd = decoded(
      R"({"code":14,"opaque":13,"extFields":{"topic":"TopicTest",)"
      R"("consumerGroup":"GID_WIRE_17244","queueId":0}})");
    query_offset_request q;
    std::string err;
    REQUIRE(decode_query_offset(cmd, q, err));
    CHECK_EQ(q.consumer_group, "GID_WIRE_17244");
    CHECK(q.set_zero_if_not_found);
    cmd.ext_fields["setZeroIfNotFound"] = "false";
    REQUIRE(decode_query_offset(cmd, q, err));
    CHECK_FALSE(q.set_zero_if_not_found);
    auto up = decoded(
      R"({"code":15,"opaque":36,"extFields":{"topic":"TopicTest",)"
      R"("consumerGroup":"GID_WIRE_17244","queueId":0,"commitOffset":1}})");
    update_offset_request u;
    REQUIRE(decode_update_offset(up, u, err));
    CHECK_EQ(u.commit_offset, 1);
    auto search = decoded(
      R"({"code":29,"opaque":3,"extFields":{"topic":"TopicTest","queueId":0,)"
      R"("timestamp":1795933430000}})");
    search_offset_request s;
    REQUIRE(decode_search_offset(search, s, err));
    CHECK_EQ(s.timestamp, 1795933430000);
    get_offset_request g;
    remoting_command max;
    max.code = request_code::get_max_offset;
    max.ext_fields = {{"topic", "T"}};
    CHECK_FALSE(decode_get_offset(max, g, err));
    CHECK_EQ(err, "the custom field <queueId> is null");
    auto out = offset_response(cmd, 42);
    CHECK_EQ(out.ext_fields["offset"], "42");
    CHECK_EQ(out.opaque, 13);
  }
}
