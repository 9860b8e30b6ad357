// The broker's client-management requests against the frames RocketMQ
// clients send (shared/reference/rocketmq-remoting.md, 3.6 and 3.7: ali-ons'
// captured session; LockBatchRequestBody and EndTransactionRequestHeader
// as the Java client writes them), and what the broker sends clients.
#include "runtime/remoting/client_manage_codec.hpp"

#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/broker_push_codec.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/runtime/remoting/json_command.hpp"

using namespace rmq;
using namespace rmq::remoting;
using rmq::test::decoded;

namespace {

const std::string heartbeat_body
  = R"({"clientID":"10.0.0.7@17244","consumerDataSet":[{"groupName":"GID_X",)"
    R"("consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",)"
    R"("consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","unitMode":false,)"
    R"("subscriptionDataSet":[{"topic":"TopicTest","subString":"TagA || TagB",)"
    R"("classFilterMode":false,"tagsSet":["TagA","TagB"],"codeSet":[2598919,)"
    R"(2598920],"subVersion":1795935190710}]}],"producerDataSet":[{)"
    R"("groupName":"PID_X"},{"groupName":"CLIENT_INNER_PRODUCER"}]})";

} // namespace

TEST_SUITE("runtime.remoting_client_manage") {
  TEST_CASE("ali-ons' HEART_BEAT, and the same body written back") {
    auto cmd = decoded(
      R"({"code":34,"language":"JAVA","opaque":11,"flag":0,"version":121,)"
      R"("extFields":{}})",
      heartbeat_body);
    client_heartbeat hb;
    std::string err;
    REQUIRE_MESSAGE(decode_heartbeat(cmd, hb, err), err);
    CHECK_EQ(hb.client_id, "10.0.0.7@17244");
    CHECK_EQ(hb.producer_groups,
             std::vector<std::string>{"PID_X", "CLIENT_INNER_PRODUCER"});
    REQUIRE_EQ(hb.consumers.size(), 1u);
    auto& c = hb.consumers[0];
    CHECK_EQ(c.group_name, "GID_X");
    CHECK_EQ(c.type, consume_type::consume_passively);
    CHECK_EQ(c.model, message_model::clustering);
    CHECK_EQ(c.from_where, consume_from_where::consume_from_first_offset);
    REQUIRE_EQ(c.subscriptions.size(), 1u);
    auto& s = c.subscriptions[0];
    CHECK_EQ(s.topic, "TopicTest");
    CHECK_EQ(s.sub_string, "TagA || TagB");
    CHECK_EQ(s.expression_type, "TAG");
    CHECK_EQ(s.tags_set, std::vector<std::string>{"TagA", "TagB"});
    CHECK_EQ(s.code_set, std::vector<int32_t>{2598919, 2598920});
    CHECK_EQ(s.sub_version, 1795935190710);
    // Written back as a client writes it, it reads the same.
    remoting_command again;
    again.code = request_code::heart_beat;
    again.body = heartbeat_json(hb).dump();
    client_heartbeat hb2;
    REQUIRE_MESSAGE(decode_heartbeat(again, hb2, err), err);
    CHECK_EQ(hb2.client_id, hb.client_id);
    CHECK_EQ(hb2.producer_groups, hb.producer_groups);
    REQUIRE_EQ(hb2.consumers.size(), 1u);
    CHECK_EQ(hb2.consumers[0].from_where, c.from_where);
    CHECK_EQ(hb2.consumers[0].subscriptions[0].code_set, s.code_set);
    auto json = nlohmann::json::parse(again.body);
    CHECK_EQ(json["consumerDataSet"][0]["messageModel"], "CLUSTERING");
    CHECK_EQ(json["consumerDataSet"][0]["consumeType"], "CONSUME_PASSIVELY");
  }

  TEST_CASE("a heartbeat that is no HeartbeatData") {
    client_heartbeat hb;
    std::string err;
    remoting_command cmd;
    cmd.code = request_code::heart_beat;
    CHECK_FALSE(decode_heartbeat(cmd, hb, err));
    CHECK_EQ(err, "the body is no JSON object");
    cmd.body = "[1,2]";
    CHECK_FALSE(decode_heartbeat(cmd, hb, err));
    cmd.body = R"({"producerDataSet":[]})";
    CHECK_FALSE(decode_heartbeat(cmd, hb, err));
    CHECK_EQ(err, "the heartbeat has no clientID");
    // Odd members are skipped, unknown enums read as the defaults.
    cmd.body = R"({"clientID":"c","producerDataSet":[7,{"groupName":"P"}],)"
               R"("consumerDataSet":[{"groupName":"G","messageModel":"X",)"
               R"("subscriptionDataSet":[1,{"topic":"T","codeSet":["a"]}]}]})";
    REQUIRE_MESSAGE(decode_heartbeat(cmd, hb, err), err);
    CHECK_EQ(hb.producer_groups, std::vector<std::string>{"P"});
    REQUIRE_EQ(hb.consumers.size(), 1u);
    CHECK_EQ(hb.consumers[0].model, message_model::clustering);
    REQUIRE_EQ(hb.consumers[0].subscriptions.size(), 1u);
    CHECK_EQ(hb.consumers[0].subscriptions[0].sub_string, "*");
    CHECK(hb.consumers[0].subscriptions[0].code_set.empty());
  }

  TEST_CASE("UNREGISTER_CLIENT and GET_CONSUMER_LIST_BY_GROUP as ali-ons "
            "sends them") {
    auto cmd = decoded(
      R"({"code":35,"language":"JAVA","opaque":44,"flag":0,"version":121,)"
      R"("extFields":{"clientID":"10.0.0.7@17244","consumerGroup":)"
      R"("GID_WIRE_17244"}})");
    unregister_client_request unreg;
    std::string err;
    REQUIRE_MESSAGE(decode_unregister_client(cmd, unreg, err), err);
    CHECK_EQ(unreg.client_id, "10.0.0.7@17244");
    CHECK_EQ(unreg.consumer_group, "GID_WIRE_17244");
    CHECK_EQ(unreg.producer_group, "");
    cmd.ext_fields.erase("clientID");
    CHECK_FALSE(decode_unregister_client(cmd, unreg, err));
    CHECK_EQ(err, "the custom field <clientID> is null");

    cmd = decoded(
      R"({"code":38,"language":"JAVA","opaque":12,"flag":0,"version":121,)"
      R"("extFields":{"consumerGroup":"GID_WIRE_17244"}})");
    get_consumer_list_request list;
    REQUIRE_MESSAGE(decode_consumer_list(cmd, list, err), err);
    CHECK_EQ(list.group, "GID_WIRE_17244");
    auto res = consumer_list_response(cmd, {{"a@1", "b@2"}});
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(res.opaque, 12);
    CHECK_EQ(res.body, R"({"consumerIdList":["a@1","b@2"]})");
  }

  TEST_CASE("LOCK_BATCH_MQ and UNLOCK_BATCH_MQ bodies") {
    remoting_command cmd;
    cmd.code = request_code::lock_batch_mq;
    cmd.body = R"({"consumerGroup":"GID_O","clientId":"10.0.0.7@1",)"
               R"("onlyThisBroker":false,"mqSet":[{"topic":"T",)"
               R"("brokerName":"broker-a","queueId":1},{"topic":"T",)"
               R"("brokerName":"broker-a","queueId":3}]})";
    lock_batch_request lock;
    std::string err;
    REQUIRE_MESSAGE(decode_lock_batch(cmd, lock, err), err);
    CHECK_EQ(lock.group, "GID_O");
    CHECK_EQ(lock.client_id, "10.0.0.7@1");
    REQUIRE_EQ(lock.queues.size(), 2u);
    CHECK_EQ(lock.queues[1].queue_id, 3);
    CHECK_EQ(lock.queues[1].broker_name, "broker-a");
    auto res = locked_response(cmd, {{lock.queues[0]}});
    CHECK_EQ(res.body, R"({"lockOKMQSet":[{"brokerName":"broker-a",)"
                       R"("queueId":1,"topic":"T"}]})");
    unlock_batch_request unlock;
    cmd.code = request_code::unlock_batch_mq;
    REQUIRE_MESSAGE(decode_unlock_batch(cmd, unlock, err), err);
    CHECK_EQ(unlock.queues.size(), 2u);
    cmd.body = R"({"mqSet":[]})";
    CHECK_FALSE(decode_unlock_batch(cmd, unlock, err));
    CHECK_EQ(err, "the body has no consumerGroup");
  }

  TEST_CASE("CONSUMER_SEND_MSG_BACK as ali-ons sends it") {
    auto cmd = decoded(
      R"({"code":36,"language":"JAVA","opaque":9,"flag":0,"version":121,)"
      R"("extFields":{"offset":4213,"group":"GID_R","delayLevel":0,)"
      R"("originMsgId":"7F000001000051AF0000000000001075",)"
      R"("originTopic":"TopicTest","unitMode":false,)"
      R"("maxReconsumeTimes":16}})");
    consumer_send_back_request back;
    std::string err;
    REQUIRE_MESSAGE(decode_send_back(cmd, back, err), err);
    CHECK_EQ(back.offset, 4213);
    CHECK_EQ(back.group, "GID_R");
    CHECK_EQ(back.delay_level, 0);
    CHECK_EQ(back.origin_msg_id, "7F000001000051AF0000000000001075");
    CHECK_EQ(back.origin_topic, "TopicTest");
    CHECK_EQ(back.max_reconsume_times, 16);
    cmd.ext_fields.erase("maxReconsumeTimes");
    REQUIRE(decode_send_back(cmd, back, err));
    CHECK_EQ(back.max_reconsume_times, -1);
    cmd.ext_fields["offset"] = "x";
    CHECK_FALSE(decode_send_back(cmd, back, err));
    CHECK_EQ(err, "the custom field <offset> is no number: x");
  }

  TEST_CASE("END_TRANSACTION: commit, rollback, not known, and nonsense") {
    remoting_command cmd;
    cmd.code = request_code::end_transaction;
    cmd.flag = command_flag::oneway;
    cmd.ext_fields = {{"producerGroup", "PG_T"},
                      {"tranStateTableOffset", "12"},
                      {"commitLogOffset", "3456"},
                      {"commitOrRollback", "8"},
                      {"fromTransactionCheck", "true"},
                      {"msgId", "0A000007000051AF00000000000012A0"},
                      {"transactionId", "0A000007000051AF00000000000012A0"}};
    end_transaction_request end;
    std::string err;
    REQUIRE_MESSAGE(decode_end_transaction(cmd, end, err), err);
    CHECK_EQ(end.producer_group, "PG_T");
    CHECK_EQ(end.tran_state_table_offset, 12);
    CHECK_EQ(end.commit_log_offset, 3456);
    CHECK_EQ(end.state, static_cast<uint8_t>(transaction_state::commit));
    CHECK(end.from_transaction_check);
    cmd.ext_fields["commitOrRollback"] = "12";
    REQUIRE(decode_end_transaction(cmd, end, err));
    CHECK_EQ(end.state, static_cast<uint8_t>(transaction_state::rollback));
    cmd.ext_fields["commitOrRollback"] = "0";
    REQUIRE(decode_end_transaction(cmd, end, err));
    CHECK_EQ(end.state, static_cast<uint8_t>(transaction_state::unknown));
    cmd.ext_fields["commitOrRollback"] = "4";
    CHECK_FALSE(decode_end_transaction(cmd, end, err));
    CHECK_EQ(err, "the custom field <commitOrRollback> is no transaction "
                  "type: 4");
  }

  TEST_CASE("what the broker sends a client") {
    auto notify = notify_consumer_ids_changed({"GID_X"});
    CHECK_EQ(notify.code, request_code::notify_consumer_ids_changed);
    CHECK(notify.is_oneway());
    CHECK_FALSE(notify.is_response());
    CHECK_EQ(notify.ext_fields,
             std::map<std::string, std::string>{{"consumerGroup", "GID_X"}});

    check_transaction_state chk;
    chk.producer_group = "PG_T";
    chk.broker_name = "broker-a";
    chk.tran_state_table_offset = 5;
    chk.commit_log_offset = 777;
    chk.msg_id = "U";
    chk.transaction_id = "T";
    chk.offset_msg_id = "O";
    chk.record = "record-bytes";
    auto check = check_transaction_request(chk);
    CHECK_EQ(check.code, request_code::check_transaction_state);
    CHECK(check.is_oneway());
    CHECK_EQ(*check.field("tranStateTableOffset"), "5");
    CHECK_EQ(*check.field("commitLogOffset"), "777");
    CHECK_EQ(*check.field("msgId"), "U");
    CHECK_EQ(*check.field("transactionId"), "T");
    CHECK_EQ(*check.field("offsetMsgId"), "O");
    CHECK_EQ(check.body, "record-bytes");

    push_reply_message push;
    push.producer_group = "PG_R";
    push.topic = "TopicReply";
    push.queue_id = 2;
    push.properties = "CORRELATION_ID\x01"
                      "c\x02";
    push.born_host = "10.0.0.7:5000";
    push.store_host = "10.0.0.1:10911";
    push.store_timestamp = 99;
    push.body = "answer";
    auto reply = push_reply_request(push);
    CHECK_EQ(reply.code, request_code::push_reply_message_to_client);
    CHECK_FALSE(reply.is_oneway());
    CHECK_EQ(*reply.field("producerGroup"), "PG_R");
    CHECK_EQ(*reply.field("queueId"), "2");
    CHECK_EQ(*reply.field("bornHost"), "10.0.0.7:5000");
    CHECK_EQ(*reply.field("storeTimestamp"), "99");
    CHECK_EQ(reply.body, "answer");
    // Each goes out as a frame a client reads back.
    for (auto* cmd : {&notify, &check, &reply}) {
      frame_reader r;
      r.feed(encode_frame(*cmd));
      auto back = r.next();
      REQUIRE(back);
      CHECK_EQ(back->code, cmd->code);
      CHECK_EQ(back->body, cmd->body);
    }
  }
}
