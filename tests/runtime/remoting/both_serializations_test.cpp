// Every broker request we serve, written as the Java client fills its
// header (RocketMQ's field names, every value a string), framed in both
// serializations (JSON and RocketMQ's binary header), read back by our
// frame reader and decoded: both forms give the same typed request, and
// that request holds what the header said.
#include <map>
#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/broker_admin_codec.hpp"
#include "runtime/remoting/client_manage_codec.hpp"
#include "runtime/remoting/client_request_headers.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/message_query_codec.hpp"
#include "runtime/remoting/remoting_codes.hpp"

using namespace rmq;
using namespace rmq::remoting;

namespace {

using fields = std::map<std::string, std::string>;

// `decode` of the request in one serialization, after a trip through a
// frame.
template <class Msg, class Decode>
Msg decoded_as(serialize_type how, int32_t code, const fields& f,
               const std::string& body, Decode decode) {
  remoting_command cmd;
  cmd.code = code;
  cmd.language = "JAVA";
  cmd.version = 453; // V4_9_4
  cmd.opaque = 77;
  cmd.serialization = how;
  cmd.ext_fields = f;
  cmd.body = body;
  frame_reader r;
  r.feed(encode_frame(cmd));
  auto back = r.next();
  REQUIRE_MESSAGE(back, r.error());
  CHECK_EQ(back->serialization, how);
  CHECK_EQ(back->opaque, 77);
  Msg out;
  std::string err;
  REQUIRE_MESSAGE(decode(*back, out, err), err);
  return out;
}

// Both serializations decode to `want`.
template <class Msg, class Decode>
void check_both(int32_t code, const fields& f, const Msg& want, Decode decode,
                const std::string& body = {}) {
  CAPTURE(code);
  auto json = decoded_as<Msg>(serialize_type::json, code, f, body, decode);
  auto binary = decoded_as<Msg>(serialize_type::rocketmq, code, f, body,
                                decode);
  CHECK(json == want);
  CHECK(binary == want);
}

} // namespace

TEST_SUITE("runtime.remoting_both_serializations") {
  TEST_CASE("the client path") {
    send_message_request send;
    send.producer_group = "PG";
    send.topic = "T";
    send.queue_id = 2;
    send.sys_flag = 1;
    send.born_timestamp = 1795935527487;
    send.properties = "TAGS\x01"
                      "A\x02";
    send.reconsume_times = 1;
    send.max_reconsume_times = 3;
    send.body = "hello";
    fields full{{"producerGroup", "PG"},
                {"topic", "T"},
                {"defaultTopic", "TBW102"},
                {"defaultTopicQueueNums", "4"},
                {"queueId", "2"},
                {"sysFlag", "1"},
                {"bornTimestamp", "1795935527487"},
                {"flag", "0"},
                {"properties", send.properties},
                {"reconsumeTimes", "1"},
                {"unitMode", "false"},
                {"maxReconsumeTimes", "3"}};
    check_both(request_code::send_message, full, send, decode_send, "hello");
    fields v2{{"a", "PG"},
              {"b", "T"},
              {"c", "TBW102"},
              {"d", "4"},
              {"e", "2"},
              {"f", "1"},
              {"g", "1795935527487"},
              {"h", "0"},
              {"i", send.properties},
              {"j", "1"},
              {"k", "false"},
              {"l", "3"}};
    check_both(request_code::send_message_v2, v2, send, decode_send, "hello");

    pull_message_request pull;
    pull.consumer_group = "CG";
    pull.topic = "T";
    pull.queue_id = 1;
    pull.queue_offset = 99;
    pull.max_msg_nums = 32;
    pull.sys_flag = 6;
    pull.commit_offset = 90;
    pull.suspend_timeout_ms = 15000;
    pull.subscription = "A || B";
    pull.sub_version = 5;
    check_both(request_code::pull_message,
               {{"consumerGroup", "CG"},
                {"topic", "T"},
                {"queueId", "1"},
                {"queueOffset", "99"},
                {"maxMsgNums", "32"},
                {"sysFlag", "6"},
                {"commitOffset", "90"},
                {"suspendTimeoutMillis", "15000"},
                {"subscription", "A || B"},
                {"subVersion", "5"}},
               pull, decode_pull);

    check_both(request_code::query_consumer_offset,
               {{"consumerGroup", "CG"}, {"topic", "T"}, {"queueId", "3"}},
               query_offset_request{"CG", "T", 3, true}, decode_query_offset);
    check_both(request_code::update_consumer_offset,
               {{"consumerGroup", "CG"},
                {"topic", "T"},
                {"queueId", "3"},
                {"commitOffset", "12"}},
               update_offset_request{"CG", "T", 3, 12}, decode_update_offset);
    check_both(request_code::search_offset_by_timestamp,
               {{"topic", "T"}, {"queueId", "0"}, {"timestamp", "1700"}},
               search_offset_request{"T", 0, 1700}, decode_search_offset);
    check_both(request_code::get_max_offset, {{"topic", "T"}, {"queueId", "1"}},
               get_offset_request{"T", 1}, decode_get_offset);
  }

  TEST_CASE("clients, lookups and admin") {
    check_both(request_code::unregister_client,
               {{"clientID", "10.0.0.1@7"}, {"consumerGroup", "CG"}},
               unregister_client_request{"10.0.0.1@7", "", "CG"},
               decode_unregister_client);
    check_both(request_code::get_consumer_list_by_group,
               {{"consumerGroup", "CG"}}, get_consumer_list_request{"CG"},
               decode_consumer_list);
    check_both(request_code::get_consumer_running_info,
               {{"consumerGroup", "CG"},
                {"clientId", "10.0.0.1@7"},
                {"jstackEnable", "true"}},
               get_consumer_running_info_request{"CG", "10.0.0.1@7", true},
               decode_consumer_running_info);
    check_both(request_code::consumer_send_msg_back,
               {{"offset", "4213"},
                {"group", "CG"},
                {"delayLevel", "0"},
                {"originMsgId", "ID"},
                {"originTopic", "T"},
                {"unitMode", "false"},
                {"maxReconsumeTimes", "16"}},
               consumer_send_back_request{4213, "CG", 0, "ID", "T", 16, false},
               decode_send_back);
    end_transaction_request end;
    end.producer_group = "PG";
    end.tran_state_table_offset = 5;
    end.commit_log_offset = 700;
    end.state = static_cast<uint8_t>(transaction_state::commit);
    end.from_transaction_check = true;
    end.msg_id = "U";
    end.transaction_id = "U";
    check_both(request_code::end_transaction,
               {{"producerGroup", "PG"},
                {"tranStateTableOffset", "5"},
                {"commitLogOffset", "700"},
                {"commitOrRollback", "8"},
                {"fromTransactionCheck", "true"},
                {"msgId", "U"},
                {"transactionId", "U"}},
               end, decode_end_transaction);
    check_both(request_code::view_message_by_id, {{"offset", "4213"}},
               view_message_request{4213}, decode_view_message);
    check_both(request_code::query_message,
               {{"topic", "T"},
                {"key", "K"},
                {"maxNum", "32"},
                {"beginTimestamp", "0"},
                {"endTimestamp", "99"}},
               query_message_request{"T", "K", 32, 0, 99},
               decode_query_message);
    update_topic_request topic;
    topic.config.topic_name = "T";
    topic.config.read_queue_nums = 8;
    topic.config.write_queue_nums = 8;
    topic.config.perm = 6;
    check_both(request_code::update_and_create_topic,
               {{"topic", "T"},
                {"defaultTopic", "TBW102"},
                {"readQueueNums", "8"},
                {"writeQueueNums", "8"},
                {"perm", "6"},
                {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"},
                {"order", "false"}},
               topic, decode_update_topic);
    check_both(request_code::delete_topic_in_broker, {{"topic", "T"}},
               delete_topic_in_broker_request{"T"}, decode_delete_topic);
    check_both(request_code::delete_subscriptiongroup, {{"groupName", "G"}},
               delete_sub_group_request{"G"}, decode_delete_sub_group);
    check_both(request_code::get_topic_stats_info, {{"topic", "T"}},
               topic_stats_request{"T"}, decode_topic_stats);
    check_both(request_code::get_consume_stats,
               {{"consumerGroup", "G"}, {"topic", "T"}},
               consume_stats_request{"G", "T"}, decode_consume_stats);
    // Bodies ride the same frames in both forms.
    client_heartbeat hb;
    hb.client_id = "10.0.0.1@7";
    hb.producer_groups = {"PG"};
    check_both(request_code::heart_beat, {}, hb, decode_heartbeat,
               heartbeat_json(hb).dump());
  }
}
