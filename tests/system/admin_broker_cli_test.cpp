// rmq-admin's broker and message commands against a real NameServer and two
// real brokers of one cluster: what each command prints (mqadmin's shapes)
// and its exit codes (0 ok, 1 unreachable node or error answer, 2 usage
// error).
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// Java's "%-Ns".
std::string pad(const std::string& x, size_t width) {
  return x + std::string(x.size() < width ? width - x.size() : 0, ' ');
}

// The topic names in a broker dump's topic table.
std::vector<std::string> dumped_topics(const std::string& text) {
  std::vector<std::string> out;
  auto dump = nlohmann::json::parse(text, nullptr, false);
  auto table = find_actor(dump, "topic_config_table");
  REQUIRE(table != nullptr);
  for (auto& cfg : (*table)["topics"])
    out.push_back(cfg["topic_name"].get<std::string>());
  return out;
}

// Sends `body` with KEYS `keys` to queue 0 of `topic`.
send_result send_keyed(remote_client& client, const broker_actor& front,
                       const std::string& topic, const std::string& body,
                       const std::string& keys) {
  send_message_request req;
  req.producer_group = "SystemTestProducer";
  req.topic = topic;
  req.queue_id = 0;
  req.body = body;
  append_property(req.properties, "KEYS", keys);
  append_property(req.properties, "TAGS", "TagA");
  auto res = client.ask<send_result>(front, std::move(req));
  REQUIRE_MESSAGE(res, describe(res.error()));
  return *res;
}

// Waits until the NameServer's route of `topic` names `brokers` brokers.
void wait_for_route(const std::string& ns, const std::string& topic,
                    size_t brokers) {
  auto ok = wait_until(
    [&] {
      auto res = run_admin({"-n", ns, "topicRoute", "-t", topic});
      if (res.rc != 0)
        return false;
      auto route = nlohmann::json::parse(res.out, nullptr, false);
      return route.is_object() && route["brokerDatas"].size() == brokers;
    },
    5s, 20ms);
  REQUIRE_MESSAGE(ok, "no route of " << topic);
}

} // namespace

TEST_SUITE("system.admin") {
  TEST_CASE("rmq-admin broker and message commands print what mqadmin "
            "prints") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto n = ns.addr();
    auto how = one_broker(ns, dir.path() + "/a");
    auto a = start_broker_node(how);
    how.name = "broker-b";
    how.store_dir = dir.path() + "/b";
    auto b = start_broker_node(how);
    remote_client client;
    auto front = client.try_connect_to<broker_actor>(a.port);
    REQUIRE_MESSAGE(front, describe(front.error()));

    // -- updateTopic on a cluster, ordered: both masters, the orderConf KV.
    auto res = run_admin({"-n", n, "updateTopic", "-c", "DefaultCluster", "-t",
                          "TopicOrd", "-r", "2", "-w", "2", "-o", "true"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(res.out,
             "create topic to " + a.addr()
               + " success.\n"
                 "create topic to "
               + b.addr()
               + " success.\n"
                 "set cluster orderConf. isOrder=true, "
                 "orderConf=[broker-a:2;broker-b:2]\n"
                 "TopicConfig [topicName=TopicOrd, readQueueNums=2, "
                 "writeQueueNums=2, perm=RW-, topicFilterType=SINGLE_TAG, "
                 "topicSysFlag=0, order=true]\n");
    res = run_admin(
      {"-n", n, "getKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k", "TopicOrd"});
    CHECK_EQ(res.out, "broker-a:2;broker-b:2\n");

    // -- updateTopic on one broker, mqadmin's defaults otherwise.
    res = run_admin({"-n", n, "updateTopic", "-b", a.addr(), "-t", "TopicA",
                     "-r", "2", "-w", "2"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(res.out, "create topic to " + a.addr()
                        + " success.\nTopicConfig [topicName=TopicA, "
                          "readQueueNums=2, writeQueueNums=2, perm=RW-, "
                          "topicFilterType=SINGLE_TAG, topicSysFlag=0, "
                          "order=false]\n");
    wait_for_route(n, "TopicA", 1);
    auto m1 = send_keyed(client, *front, "TopicA", "body-one", "K1");
    auto m2 = send_keyed(client, *front, "TopicA", "body-two", "K2 K3");
    auto m3 = send_keyed(client, *front, "TopicA", "body-three", "K1");
    CHECK_EQ(m3.queue_offset, 2);
    // Acknowledged is stored; readable (max offset 3) comes a moment later.
    REQUIRE(wait_readable(client, *front, "TopicA", 0, 3));
    REQUIRE_FALSE(m2.msg_id.empty());
    REQUIRE_NE(m2.msg_id, m2.offset_msg_id);

    // -- topicStatus: queue 0 holds 3, queue 1 none.
    res = run_admin({"-n", n, "topicStatus", "-t", "TopicA"});
    CHECK_EQ(res.rc, 0);
    auto lines = std::vector<std::string>{};
    {
      std::istringstream in{res.out};
      for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    }
    REQUIRE_EQ(lines.size(), 3u);
    CHECK_EQ(lines[0], "#Broker Name                      #QID  #Min Offset  "
                       "         #Max Offset             #Last Updated");
    auto row0 = pad("broker-a", 32) + "  " + pad("0", 4) + "  " + pad("0", 20)
                + "  " + pad("3", 20) + "    ";
    CHECK_EQ(lines[1].substr(0, row0.size()), row0);
    CHECK_EQ(lines[1].size(), 86u + 23u); // "yyyy-MM-dd HH:mm:ss,SSS"
    CHECK_EQ(lines[2], "broker-a                          1     0         "
                       "            0                       ");

    // -- brokerStatus: the runtime table, sorted, "%-32s: %s"; with -c
    // every line starts with the broker's address.
    res = run_admin({"-n", n, "brokerStatus", "-b", a.addr()});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "\nmsgPutTotalTodayNow             : 3\n"));
    CHECK(contains(res.out, "flushDiskType                   : ASYNC_FLUSH\n"));
    res = run_admin({"-n", n, "brokerStatus", "-c", "DefaultCluster"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, a.addr() + std::string(24 - a.addr().size(), ' ')
                              + " msgPutTotalTodayNow             : 3\n"));
    CHECK(contains(res.out, b.addr() + std::string(24 - b.addr().size(), ' ')
                              + " msgPutTotalTodayNow             : 0\n"));

    // -- consumerProgress: the group committed 1 of queue 0.
    auto committed = client.ask<caf::ok_atom>(
      *front, update_offset_request{"GroupP", "TopicA", 0, 1});
    REQUIRE_MESSAGE(committed, describe(committed.error()));
    res = run_admin(
      {"-n", n, "consumerProgress", "-g", "GroupP", "-t", "TopicA"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, pad("#Topic", 32) + "  " + pad("#Broker Name", 32)
                              + "  #QID  " + pad("#Broker Offset", 20) + "  "
                              + pad("#Consumer Offset", 20) + "  "
                              + pad("#Diff", 20) + " #LastTime\n"));
    CHECK(contains(res.out, pad("TopicA", 32) + "  " + pad("broker-a", 32)
                              + "  0     " + pad("3", 20) + "  " + pad("1", 20)
                              + "  " + pad("2", 20) + " "));
    CHECK(contains(res.out, "\nDiff Total: 2\n"));
    CHECK(contains(res.out, "\nConsume TPS: "));

    // Without -t the group's retry topic finds its brokers; without -g
    // every group with a retry topic is listed, with its consumers.
    consumer_data cd;
    cd.group_name = "GroupP";
    subscription_data sub;
    sub.topic = "TopicA";
    cd.subscriptions.push_back(sub);
    auto beat = client.ask<caf::ok_atom>(
      *front, client_heartbeat{"127.0.0.1@test", {}, {cd}});
    REQUIRE_MESSAGE(beat, describe(beat.error()));
    wait_for_route(n, "%RETRY%GroupP", 1);
    res = run_admin({"-n", n, "consumerProgress", "-g", "GroupP"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, pad("TopicA", 32) + "  " + pad("broker-a", 32)
                              + "  0     " + pad("3", 20) + "  " + pad("1", 20)
                              + "  " + pad("2", 20) + " "));
    res = run_admin({"-n", n, "consumerProgress"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, pad("#Group", 64) + "  #Count  "
                              + pad("#Version", 24) + " #Type  "
                              + pad("#Model", 14)
                              + "  #TPS     #Diff Total\n"));
    CHECK(contains(res.out, pad("GroupP", 64) + "  1       "));
    CHECK(contains(res.out, "  2\n"));

    // -- updateTopic -b with -o: this broker's entry of the orderConf
    // changes, the other broker's stays.
    res = run_admin({"-n", n, "updateTopic", "-b", b.addr(), "-t", "TopicOrd",
                     "-r", "3", "-w", "3", "-o", "true"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "set broker orderConf. isOrder=true, "
                            "orderConf=[broker-a:2;broker-b:3]\n"
                            "create topic to "
                              + b.addr() + " success.\n"));
    res = run_admin(
      {"-n", n, "getKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k", "TopicOrd"});
    CHECK_EQ(res.out, "broker-a:2;broker-b:3\n");

    // -- updateSubGroup, visible in the broker's dump.
    res = run_admin({"-n", n, "updateSubGroup", "-b", a.addr(), "-g", "GroupS",
                     "-r", "5", "-q", "2"});
    CHECK_EQ(res.rc, 0);
    CHECK(
      contains(res.out, "create subscription group to " + a.addr()
                          + " success.\n"
                            "SubscriptionGroupConfig{groupName=GroupS, "
                            "consumeEnable=true, consumeFromMinEnable=false, "
                            "consumeBroadcastEnable=false, "
                            "consumeMessageOrderly=false, retryQueueNums=2, "
                            "retryMaxTimes=5, brokerId=0"));
    res = run_admin({"-n", n, "dump", "-b", a.addr()});
    CHECK_EQ(res.rc, 0);
    auto dump = nlohmann::json::parse(res.out, nullptr, false);
    REQUIRE(dump.is_object());
    CHECK(contains(res.out, "\"GroupS\""));
    auto topics = dumped_topics(res.out);
    CHECK(std::find(topics.begin(), topics.end(), "TopicA") != topics.end());
    // The store's watermarks are in it.
    auto writer = find_actor(dump, "commit_log_writer");
    REQUIRE(writer != nullptr);
    CHECK_GT((*writer)["write_offset"].get<int64_t>(), 0);
    CHECK_EQ((*writer)["dispatched_offset"], (*writer)["write_offset"]);

    // -- queryMsgById: by offsetMsgId, and by UNIQ_KEY with -t.
    res = run_admin({"-n", n, "queryMsgById", "-i", m2.offset_msg_id});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "OffsetID:            " + m2.offset_msg_id + "\n"));
    CHECK(contains(res.out, "MsgId:               " + m2.msg_id + "\n"));
    CHECK(contains(res.out, "Topic:               TopicA\n"));
    CHECK(contains(res.out, "Tags:                [TagA]\n"));
    CHECK(contains(res.out, "Keys:                [K2 K3]\n"));
    CHECK(contains(res.out, "Queue Offset:        1\n"));
    // The store host is the broker's remoting address (RocketMQ's tools
    // look messages up there); rmq-admin found the broker through it.
    CHECK(contains(res.out, "Store Host:          127.0.0.1:"
                              + std::to_string(a.remoting_port) + "\n"));
    CHECK(contains(res.out, "Message Body:        body-two\n"));
    res = run_admin({"-n", n, "queryMsgById", "-i", m2.msg_id, "-t", "TopicA"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "OffsetID:            " + m2.offset_msg_id + "\n"));
    CHECK(contains(res.out, "Message Body:        body-two\n"));
    CHECK_EQ(count_of(res.out, "OffsetID:"), 1u);

    // -- queryMsgByKey: both messages with K1.
    res = run_admin({"-n", n, "queryMsgByKey", "-t", "TopicA", "-k", "K1"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out,
                   "#Message ID                                        "
                   "#QID                                  #Offset\n"));
    CHECK(contains(res.out, m1.msg_id));
    CHECK(contains(res.out, m3.msg_id));
    CHECK_FALSE(contains(res.out, m2.msg_id));

    // -- queryMsgByOffset: one pull, no commit.
    res = run_admin({"-n", n, "queryMsgByOffset", "-b", "broker-a", "-t",
                     "TopicA", "-i", "0", "-o", "2"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "Message Body:        body-three\n"));
    res = run_admin({"-n", n, "queryMsgByOffset", "-b", "broker-a", "-t",
                     "TopicA", "-i", "0", "-o", "3"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "no message at offset 3"));

    // -- printMsg: every queue, every message; -d false drops bodies.
    res = run_admin({"-n", n, "printMsg", "-t", "TopicA"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "minOffset=0, maxOffset=3, MessageQueue "
                            "[topic=TopicA, brokerName=broker-a, "
                            "queueId=0]\n"));
    CHECK(contains(res.out, "minOffset=0, maxOffset=0, MessageQueue "
                            "[topic=TopicA, brokerName=broker-a, "
                            "queueId=1]\n"));
    CHECK_EQ(count_of(res.out, "Message Body:"), 3u);
    CHECK(contains(res.out, "Message Body:        body-one\n"));
    CHECK_EQ(count_of(res.out, "-----------------------------------------------"
                               "---------\n"),
             2u);
    res = run_admin(
      {"-n", n, "printMsg", "-t", "TopicA", "-d", "false", "-s", "TagA"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(count_of(res.out, "OffsetID:"), 3u);
    CHECK_EQ(count_of(res.out, "Message Body:"), 0u);
    res = run_admin({"-n", n, "printMsg", "-t", "TopicA", "-b",
                     "4102444800000"}); // 2100: after every message
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "minOffset=3, maxOffset=3"));
    CHECK_EQ(count_of(res.out, "OffsetID:"), 0u);

    // mqadmin's date form: an end before every message prints none.
    res = run_admin(
      {"-n", n, "printMsg", "-t", "TopicA", "-e", "2000-01-01#00:00:00:000"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "minOffset=0, maxOffset=0, MessageQueue "
                            "[topic=TopicA, brokerName=broker-a, "
                            "queueId=0]\n"));
    CHECK_EQ(count_of(res.out, "OffsetID:"), 0u);
    res = run_admin({"-n", n, "printMsg", "-t", "TopicA", "-e", "yesterday"});
    CHECK_EQ(res.rc, 2);

    // -- deleteTopic -c: gone from the broker and the NameServer.
    res = run_admin(
      {"-n", n, "deleteTopic", "-t", "TopicA", "-c", "DefaultCluster"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(res.out,
             "delete topic [TopicA] from cluster [DefaultCluster] success.\n"
             "delete topic [TopicA] from NameServer success.\n");
    res = run_admin({"-n", n, "topicRoute", "-t", "TopicA"});
    CHECK_EQ(res.rc, 1);
    res = run_admin({"-n", n, "dump", "-b", a.addr()});
    CHECK_EQ(res.rc, 0);
    auto left = dumped_topics(res.out);
    CHECK(std::find(left.begin(), left.end(), "TopicA") == left.end());
    CHECK(std::find(left.begin(), left.end(), "TopicOrd") != left.end());
  }

  TEST_CASE("rmq-admin broker commands fail clearly") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto n = ns.addr();
    auto how = one_broker(ns, dir.path() + "/a");
    auto a = start_broker_node(how);
    // Unknown cluster, topic, broker name.
    auto res
      = run_admin({"-n", n, "updateTopic", "-c", "NoCluster", "-t", "T"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "cluster NoCluster has no brokers"));
    res = run_admin({"-n", n, "topicStatus", "-t", "NoSuchTopic"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "rmq-admin: topicStatus: "));
    res = run_admin({"-n", n, "queryMsgByOffset", "-b", "ghost", "-t", "TBW102",
                     "-i", "0", "-o", "0"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "no master broker ghost"));
    // A broker that is not there: bounded by --timeout-ms.
    auto dead = "127.0.0.1:" + std::to_string(unused_port());
    res = run_admin(
      {"-n", n, "--timeout-ms", "1000", "brokerStatus", "-b", dead});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "cannot connect to broker " + dead));
    // Bad flags.
    res = run_admin({"-n", n, "updateTopic", "-b", a.addr(), "-c",
                     "DefaultCluster", "-t", "T"});
    CHECK_EQ(res.rc, 2);
    CHECK(contains(res.out, "give exactly one of -b"));
    res = run_admin(
      {"-n", n, "updateTopic", "-b", a.addr(), "-t", "T", "-r", "many"});
    CHECK_EQ(res.rc, 2);
    CHECK(contains(res.out, "option -r needs a number"));
    res = run_admin({"-n", n, "queryMsgById", "-i", "not-an-id"});
    CHECK_EQ(res.rc, 2);
    CHECK(contains(res.out, "give -t TOPIC"));
    res = run_admin({"-n", n, "topicStatus", "-t", "T", "-g", "G"});
    CHECK_EQ(res.rc, 2);
  }
}
