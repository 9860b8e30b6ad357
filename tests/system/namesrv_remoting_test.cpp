// A NameServer's remoting port against frames as RocketMQ clients write
// them (our C++ remoting client, runtime/remoting/remoting_client): route
// queries in both header serializations, an unknown code, a oneway
// request, and connections that send bad frames, which are closed while
// the others keep being served.
#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runtime/message/crc32.hpp"
#include "runtime/remoting/namesrv_body.hpp"
#include "runtime/remoting/remoting_client.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/support/frame_bytes.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/namesrv_system_support.hpp"
#include "tests/system/remoting_call.hpp"

using namespace rmq::test;
using namespace rmq::remoting;
using namespace std::chrono_literals;

namespace {

remoting_client connect_to(uint16_t port) {
  remoting_client c;
  REQUIRE_MESSAGE(c.connect("127.0.0.1", port), c.error());
  return c;
}

remoting_command route_query(const std::string& topic, serialize_type how,
                             int32_t version = 479) {
  remoting_command req;
  req.code = request_code::get_routeinfo_by_topic;
  req.language = "JAVA";
  req.version = version;
  req.ext_fields["topic"] = topic;
  req.serialization = how;
  return req;
}

// A NameServer (serving remoting on a free port) with `extra` flags.
namesrv_process start_remoting_namesrv(std::vector<std::string> extra = {}) {
  namesrv_launch how;
  how.extra = std::move(extra);
  return start_namesrv(how);
}

} // namespace

TEST_SUITE("system.namesrv.remoting") {
  TEST_CASE("route queries in both serializations, answered in the "
            "request's") {
    auto ns = start_remoting_namesrv();
    auto broker = start_broker({ns.addr()});
    auto c = connect_to(ns.remoting_port);
    for (auto how : {serialize_type::json, serialize_type::rocketmq}) {
      CAPTURE(static_cast<int>(how));
      auto res = c.call(route_query("TopicA", how), 10s);
      REQUIRE_MESSAGE(res, c.error());
      CHECK_EQ(res->code, response_code::success);
      CHECK(res->is_response());
      CHECK_EQ(res->serialization, how);
      auto route = nlohmann::json::parse(res->body);
      REQUIRE_EQ(route["queueDatas"].size(), 1u);
      CHECK_EQ(route["queueDatas"][0]["brokerName"], "broker-a");
      CHECK_EQ(route["queueDatas"][0]["perm"], 6);
      CHECK_EQ(route["queueDatas"][0]["writeQueueNums"], 4);
      REQUIRE_EQ(route["brokerDatas"].size(), 1u);
      // Standard JSON: the broker id is a quoted key.
      CHECK(route["brokerDatas"][0]["brokerAddrs"].contains("0"));
      CHECK_EQ(route["brokerDatas"][0]["cluster"], "DefaultCluster");
    }
    // ali-ons' version 121 gets standard JSON too.
    auto old = c.call(route_query("TopicB", serialize_type::json, 121), 10s);
    REQUIRE(old);
    CHECK_NE(old->body.find("\"brokerAddrs\":{\"0\":"), std::string::npos);
  }

  TEST_CASE("an unknown topic, an unknown code, a missing field and a "
            "oneway request") {
    auto ns = start_remoting_namesrv();
    auto c = connect_to(ns.remoting_port);
    auto res = c.call(route_query("NoSuchTopic", serialize_type::json), 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::topic_not_exist);
    CHECK_EQ(res->remark, std::optional<std::string>{
                            "No topic route info in name server for the "
                            "topic: NoSuchTopic"});
    remoting_command odd;
    odd.code = 9999;
    odd.serialization = serialize_type::rocketmq;
    res = c.call(odd, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::request_code_not_supported);
    CHECK_EQ(res->remark,
             std::optional<std::string>{" request type 9999 not supported"});
    auto no_topic = route_query("x", serialize_type::json);
    no_topic.ext_fields.clear();
    res = c.call(no_topic, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::system_error);
    CHECK_EQ(res->remark,
             std::optional<std::string>{"the custom field <topic> is null"});
    // A oneway request gets no answer: the next answer on the connection
    // is the next request's.
    auto oneway = route_query("NoSuchTopic", serialize_type::json);
    oneway.flag = command_flag::oneway;
    oneway.opaque = 4242;
    REQUIRE(c.send(oneway));
    res = c.call(route_query("Other", serialize_type::json), 10s);
    REQUIRE(res);
    CHECK_NE(res->opaque, 4242);
    CHECK_FALSE(c.receive(200ms));
  }

  TEST_CASE("bad frames close their connection, others go on") {
    auto ns = start_remoting_namesrv({"--max-frame-bytes=4096"});
    auto good = connect_to(ns.remoting_port);
    auto closed_after = [&](const std::string& bytes) {
      auto bad = connect_to(ns.remoting_port);
      REQUIRE(bad.send_raw(bytes));
      CHECK_FALSE(bad.receive(10s));
      CHECK(bad.peer_closed());
    };
    // Over the limit: refused from the length alone.
    closed_after(be32(1u << 30));
    closed_after(be32(4093));
    // A length too short for the header length, a header length that
    // lies, an unknown serialization, a header that is no JSON.
    closed_after(be32(2) + "ab");
    closed_after(be32(8) + be32(100) + "abcd");
    closed_after(be32(6) + be32((7u << 24) | 2) + "{}");
    closed_after(be32(9) + be32(5) + "{oops");
    // The healthy connection is still served.
    auto res = good.call(route_query("NoSuchTopic", serialize_type::json), 10s);
    REQUIRE_MESSAGE(res, good.error());
    CHECK_EQ(res->code, response_code::topic_not_exist);
  }

  TEST_CASE("a peer that stalls mid-frame or goes silent is closed") {
    auto ns = start_remoting_namesrv(
      {"--remoting-stall-timeout-ms=300", "--remoting-idle-timeout-ms=1500"});
    auto stalled = connect_to(ns.remoting_port);
    REQUIRE(stalled.send_raw(be32(100) + "abc"));
    auto silent = connect_to(ns.remoting_port);
    auto good = connect_to(ns.remoting_port);
    // The stalled one goes first; the served one stays while it talks.
    CHECK_FALSE(stalled.receive(10s));
    CHECK(stalled.peer_closed());
    auto res = good.call(route_query("NoSuchTopic", serialize_type::json), 10s);
    REQUIRE_MESSAGE(res, good.error());
    CHECK_FALSE(silent.receive(10s));
    CHECK(silent.peer_closed());
  }

  TEST_CASE("KV config, cluster info, topic lists, write perm, member "
            "group, topic registration and config, as mqadmin sends them") {
    auto ns = start_remoting_namesrv();
    auto broker = start_broker({ns.addr()});
    auto c = connect_to(ns.remoting_port);
    auto call = [&](int32_t code, std::map<std::string, std::string> fields,
                    std::string body = {}) {
      return remoting_call(c, code, std::move(fields), std::move(body));
    };
    // KV config.
    auto res = call(request_code::put_kv_config,
                    {{"namespace", "NS"}, {"key", "k"}, {"value", "v1"}});
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_kv_config,
               {{"namespace", "NS"}, {"key", "k"}});
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(*res.field("value"), "v1");
    res = call(request_code::get_kvlist_by_namespace, {{"namespace", "NS"}});
    CHECK_EQ(nlohmann::json::parse(res.body)["table"]["k"], "v1");
    res = call(request_code::delete_kv_config,
               {{"namespace", "NS"}, {"key", "k"}});
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_kv_config,
               {{"namespace", "NS"}, {"key", "k"}});
    CHECK_EQ(res.code, response_code::query_not_found);
    CHECK_EQ(res.remark, std::optional<std::string>{
                           "No config item, Namespace: NS Key: k"});
    res = call(request_code::get_kv_config, {{"namespace", "NS"}});
    CHECK_EQ(res.code, response_code::system_error);
    // Cluster info.
    res = call(request_code::get_broker_cluster_info, {});
    REQUIRE_EQ(res.code, response_code::success);
    auto info = nlohmann::json::parse(res.body);
    CHECK_EQ(info["clusterAddrTable"]["DefaultCluster"][0], "broker-a");
    CHECK_EQ(info["brokerAddrTable"]["broker-a"]["brokerName"], "broker-a");
    CHECK(info["brokerAddrTable"]["broker-a"]["brokerAddrs"].contains("0"));
    // Topic lists.
    res = call(request_code::get_all_topic_list_from_nameserver, {});
    auto all = nlohmann::json::parse(res.body)["topicList"];
    CHECK_NE(std::find(all.begin(), all.end(), "TopicA"), all.end());
    res = call(request_code::get_topics_by_cluster,
               {{"cluster", "DefaultCluster"}});
    CHECK_EQ(nlohmann::json::parse(res.body)["topicList"].size(), 2u);
    res = call(request_code::get_system_topic_list_from_ns, {});
    auto sys = nlohmann::json::parse(res.body);
    CHECK_NE(std::find(sys["topicList"].begin(), sys["topicList"].end(),
                       "broker-a"),
             sys["topicList"].end());
    // The stand-in broker's remoting address, not its CAF one.
    CHECK_EQ(sys["brokerAddr"], "127.0.0.1:10911");
    // Member group.
    res = call(request_code::get_broker_member_group,
               {{"clusterName", "DefaultCluster"}, {"brokerName", "broker-a"}});
    CHECK_EQ(nlohmann::json::parse(res.body)["brokerMemberGroup"]["brokerName"],
             "broker-a");
    // Write perm: wiped, then added back.
    res = call(request_code::wipe_write_perm_of_broker,
               {{"brokerName", "broker-a"}});
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(*res.field("wipeTopicCount"), "2");
    res = call(request_code::get_routeinfo_by_topic, {{"topic", "TopicA"}});
    CHECK_EQ(nlohmann::json::parse(res.body)["queueDatas"][0]["perm"], 4);
    res = call(request_code::add_write_perm_of_broker,
               {{"brokerName", "broker-a"}});
    CHECK_EQ(*res.field("addTopicCount"), "2");
    // A topic registered with a route body, then deleted.
    res = call(request_code::register_topic_in_namesrv, {{"topic", "TopicNew"}},
               R"({"queueDatas":[{"brokerName":"broker-a","perm":6,)"
               R"("readQueueNums":2,"writeQueueNums":2,"topicSysFlag":0}],)"
               R"("brokerDatas":[]})");
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_routeinfo_by_topic, {{"topic", "TopicNew"}});
    REQUIRE_EQ(res.code, response_code::success);
    CHECK_EQ(nlohmann::json::parse(res.body)["queueDatas"][0]["readQueueNums"],
             2);
    res = call(request_code::register_topic_in_namesrv, {{"topic", "TopicBad"}},
               "{not json");
    CHECK_EQ(res.code, response_code::system_error);
    res = call(request_code::delete_topic_in_namesrv, {{"topic", "TopicNew"}});
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_routeinfo_by_topic, {{"topic", "TopicNew"}});
    CHECK_EQ(res.code, response_code::topic_not_exist);
    // The node's config as properties text, and a change to it.
    res = call(request_code::get_namesrv_config, {});
    CHECK_NE(res.body.find("orderMessageEnable=false\n"), std::string::npos);
    res = call(request_code::update_namesrv_config, {},
               "# a comment\norderMessageEnable = true\n");
    CHECK_EQ(res.code, response_code::success);
    res = call(request_code::get_namesrv_config, {});
    CHECK_NE(res.body.find("orderMessageEnable=true\n"), std::string::npos);
  }

  TEST_CASE("a RocketMQ broker registers, is routed, is asked for its data "
            "version and leaves") {
    auto ns = start_remoting_namesrv();
    auto c = connect_to(ns.remoting_port);
    rmq::register_broker_request reg;
    reg.version.counter = 7;
    reg.version.timestamp = 1795935358330;
    rmq::topic_config tc;
    tc.topic_name = "TopicFromJava";
    tc.read_queue_nums = tc.write_queue_nums = 8;
    reg.topics.push_back(tc);
    auto body = register_body_json(reg).dump();
    remoting_command req;
    req.code = request_code::register_broker;
    req.language = "JAVA";
    req.ext_fields
      = {{"brokerName", "broker-java"},
         {"brokerAddr", "127.0.0.1:30911"},
         {"clusterName", "JavaCluster"},
         {"haServerAddr", "127.0.0.1:30912"},
         {"brokerId", "0"},
         {"compressed", "false"},
         {"bodyCrc32", std::to_string(rmq::crc32_of(body) & 0x7FFFFFFF)}};
    req.body = body;
    auto res = c.call(req, 10s);
    REQUIRE_MESSAGE(res, c.error());
    CHECK_EQ(res->code, response_code::success);
    res = c.call(route_query("TopicFromJava", serialize_type::json), 10s);
    REQUIRE(res);
    REQUIRE_EQ(res->code, response_code::success);
    auto route = nlohmann::json::parse(res->body);
    CHECK_EQ(route["brokerDatas"][0]["brokerAddrs"]["0"], "127.0.0.1:30911");
    CHECK_EQ(route["queueDatas"][0]["writeQueueNums"], 8);
    // Same data version: unchanged.
    remoting_command q;
    q.code = request_code::query_data_version;
    q.ext_fields = {{"brokerName", "broker-java"},
                    {"brokerAddr", "127.0.0.1:30911"},
                    {"clusterName", "JavaCluster"},
                    {"brokerId", "0"}};
    q.body = to_json(reg.version).dump();
    res = c.call(q, 10s);
    REQUIRE(res);
    CHECK_EQ(*res->field("changed"), "false");
    // A body that does not match its CRC, and the compressed variant.
    auto bad = req;
    bad.ext_fields["bodyCrc32"] = "12345";
    res = c.call(bad, 10s);
    REQUIRE(res);
    CHECK_EQ(res->remark, std::optional<std::string>{"crc32 not match"});
    bad = req;
    bad.ext_fields["compressed"] = "true";
    res = c.call(bad, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::system_error);
    bad = req;
    bad.ext_fields["brokerId"] = "zero";
    res = c.call(bad, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::system_error);
    // A oneway heartbeat, then UNREGISTER_BROKER: the route goes (the
    // NameServer applies unregistrations in batches).
    remoting_command hb = q;
    hb.code = request_code::broker_heartbeat;
    hb.flag = command_flag::oneway;
    hb.body.clear();
    REQUIRE(c.send(hb));
    remoting_command unreg = q;
    unreg.code = request_code::unregister_broker;
    unreg.body.clear();
    res = c.call(unreg, 10s);
    REQUIRE(res);
    CHECK_EQ(res->code, response_code::success);
    int32_t last = -1;
    wait_until(
      [&] {
        auto r = c.call(route_query("TopicFromJava", serialize_type::json),
                        10s);
        last = r ? r->code : -1;
        return last == response_code::topic_not_exist;
      },
      10s);
    CHECK_EQ(last, response_code::topic_not_exist);
  }

  TEST_CASE("a NameServer with 256 descriptors survives 300 idle remoting "
            "peers") {
    namesrv_launch how;
    how.prefix = {"/usr/bin/prlimit", "--nofile=256:256"};
    how.extra = {"--remoting-idle-timeout-ms=2000"};
    how.log_to_stdout = true;
    auto ns = start_namesrv(how);
    auto good = connect_to(ns.remoting_port);
    REQUIRE(good.call(route_query("NoSuchTopic", serialize_type::json), 10s));
    std::vector<int> idle;
    for (int i = 0; i < 300; ++i)
      if (auto fd = raw_connect(ns.remoting_port); fd >= 0)
        idle.push_back(fd);
    MESSAGE("idle connections opened: " << idle.size());
    // The connection it had is served on while the flood sits there.
    auto res = good.call(route_query("NoSuchTopic", serialize_type::json), 10s);
    REQUIRE_MESSAGE(res, good.error());
    CHECK_EQ(res->code, response_code::topic_not_exist);
    // Every idle peer is closed: refused at once over the cap, or at its
    // idle timeout.
    int closed = 0;
    for (int fd : idle) {
      closed += wait_closed_by_peer(fd, 15s) ? 1 : 0;
      ::close(fd);
    }
    CHECK_EQ(closed, static_cast<int>(idle.size()));
    CHECK_EQ(ns.proc->wait(0ms), -1);
    // Room again: a new client gets in.
    auto later = connect_to(ns.remoting_port);
    res = later.call(route_query("NoSuchTopic", serialize_type::rocketmq), 10s);
    REQUIRE_MESSAGE(res, later.error());
    CHECK_EQ(res->code, response_code::topic_not_exist);
  }
}
