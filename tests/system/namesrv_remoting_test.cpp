// A NameServer's remoting port against frames as RocketMQ clients write
// them (our C++ remoting client, runtime/remoting/remoting_client): route
// queries in both header serializations, an unknown code, a oneway
// request, and connections that send bad frames, which are closed while
// the others keep being served.
#include <chrono>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runtime/remoting/remoting_client.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/system/namesrv_system_support.hpp"

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

std::string be32(uint32_t x) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>(x >> (24 - 8 * i));
  return out;
}

} // namespace

TEST_SUITE("system.namesrv.remoting") {
  TEST_CASE("route queries in both serializations, answered in the "
            "request's") {
    namesrv_launch how;
    how.remoting = true;
    auto ns = start_namesrv(how);
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
    namesrv_launch how;
    how.remoting = true;
    auto ns = start_namesrv(how);
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
    namesrv_launch how;
    how.remoting = true;
    how.extra = {"--max-frame-bytes=4096"};
    auto ns = start_namesrv(how);
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
    namesrv_launch how;
    how.remoting = true;
    how.extra = {"--remoting-stall-timeout-ms=300",
                 "--remoting-idle-timeout-ms=1500"};
    auto ns = start_namesrv(how);
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
}
