// Routes across real processes: a stand-in broker registers, other
// processes read, and NameServers react to processes dying.
#include <chrono>
#include <csignal>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq::test;

namespace {

using clock_type = std::chrono::steady_clock;

// The liveness sequence number of the node's one broker (it grows with
// every heartbeat), 0 if the node has none or does not answer.
int64_t live_seq(remote_client& client, const rmq::namesrv_actor& hdl) {
  auto text = client.ask<std::string>(hdl, rmq::dump_atom::value);
  if (!text)
    return 0;
  auto dump = nlohmann::json::parse(*text);
  for (auto& actor : dump["actors"])
    if (actor.value("actor", "") == "broker_live_table"
        && actor["brokers"].size() == 1)
      return actor["brokers"][0]["seq"].get<int64_t>();
  return 0;
}

} // namespace

TEST_SUITE("system.namesrv.routes") {
  TEST_CASE("a broker registered by one process is routed to another") {
    auto ns = start_namesrv();
    auto broker = start_broker({ns.addr()});
    // Process three: rmq-admin.
    auto res = run_admin({"-n", ns.addr(), "topicRoute", "-t", "TopicA"});
    REQUIRE_EQ(res.rc, 0);
    auto route = nlohmann::json::parse(res.out);
    REQUIRE_EQ(route["queueDatas"].size(), 1u);
    CHECK_EQ(route["queueDatas"][0]["brokerName"], "broker-a");
    CHECK_EQ(route["queueDatas"][0]["readQueueNums"], 4);
    CHECK_EQ(route["queueDatas"][0]["writeQueueNums"], 4);
    CHECK_EQ(route["queueDatas"][0]["perm"], 6);
    REQUIRE_EQ(route["brokerDatas"].size(), 1u);
    CHECK_EQ(route["brokerDatas"][0]["cluster"], "DefaultCluster");
    CHECK_EQ(route["brokerDatas"][0]["brokerAddrs"]["0"], "127.0.0.1:10921");
    // And an actor system inside the test process.
    remote_client client;
    auto hdl = client.connect(ns.port);
    REQUIRE(hdl);
    auto direct = client.ask<rmq::topic_route_data>(
      hdl, rmq::get_route_info_request{"TopicB"});
    REQUIRE(direct);
    REQUIRE_EQ(direct->broker_datas.size(), 1u);
    CHECK_EQ(direct->broker_datas[0].broker_name, "broker-a");
  }

  TEST_CASE("killing the broker process removes it from routes at once, "
            "not after its heartbeat timeout") {
    auto ns = start_namesrv();
    auto broker = start_broker({ns.addr()});
    remote_client client;
    auto hdl = client.connect(ns.port);
    REQUIRE(hdl);
    REQUIRE(client.knows_broker(hdl, "broker-a"));
    broker->signal(SIGKILL);
    auto t0 = clock_type::now();
    // Far below the 120 s heartbeat timeout: only the lost connection can
    // have removed it. How fast is measured, not asserted.
    REQUIRE(
      wait_until([&] { return !client.knows_broker(hdl, "broker-a"); }, 30s));
    MESSAGE("broker removed "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                 clock_type::now() - t0)
                 .count()
            << " ms after SIGKILL");
    auto route = client.ask<rmq::topic_route_data>(
      hdl, rmq::get_route_info_request{"TopicA"});
    REQUIRE_FALSE(route);
    CHECK(route.error() == rmq::errc::topic_not_exist);
  }

  TEST_CASE("two NameServers hold the broker independently") {
    auto ns1 = start_namesrv();
    auto ns2 = start_namesrv();
    auto broker = start_broker({ns1.addr(), ns2.addr()});
    remote_client client;
    auto hdl1 = client.connect(ns1.port);
    auto hdl2 = client.connect(ns2.port);
    REQUIRE(hdl1);
    REQUIRE(hdl2);
    CHECK(client.knows_broker(hdl1, "broker-a"));
    CHECK(client.knows_broker(hdl2, "broker-a"));
    // A change on one NameServer stays there.
    auto wiped = client.ask<rmq::write_perm_result>(
      hdl1, rmq::wipe_write_perm_request{"broker-a"});
    REQUIRE(wiped);
    CHECK_EQ(wiped->topic_count, 2);
    auto route2 = client.ask<rmq::topic_route_data>(
      hdl2, rmq::get_route_info_request{"TopicA"});
    REQUIRE(route2);
    CHECK_EQ(route2->queue_datas.at(0).perm, rmq::perm::read_write);
    // Losing one NameServer leaves the other routing.
    ns1.proc->signal(SIGKILL);
    CHECK_EQ(ns1.proc->wait(), 128 + SIGKILL);
    std::string lost;
    CHECK(broker->wait_for("lost " + ns1.addr(), lost, 5s));
    // A heartbeat reaches the other NameServer after the loss: the broker
    // did not trip over the dead one.
    auto seq = live_seq(client, hdl2);
    REQUIRE_GT(seq, 0);
    CHECK(wait_until([&] { return live_seq(client, hdl2) > seq; }, 30s));
    CHECK(client.knows_broker(hdl2, "broker-a"));
    auto res = run_admin({"-n", ns2.addr(), "topicRoute", "-t", "TopicB"});
    CHECK_EQ(res.rc, 0);
    CHECK(res.out.find("\"brokerName\": \"broker-a\"") != std::string::npos);
    CHECK_EQ(run_admin({"-n", ns1.addr(), "topicRoute", "-t", "TopicB"}).rc, 1);
  }

} // TEST_SUITE
