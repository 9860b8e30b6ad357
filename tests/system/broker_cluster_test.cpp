// Two NameServers, two broker processes and this test process as the
// client, sharing the processes across the checks of issue #7: a topic
// created on the cluster routes to both brokers on both NameServers; a
// broker killed with SIGKILL leaves the routes within 1 s and comes back
// when restarted on its port at once; a NameServer restarted empty has both
// brokers again within one registration period; SIGINT unregisters a broker
// and exits 0; with every NameServer down the brokers keep serving.
#include <chrono>
#include <csignal>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicCluster";
const std::set<std::string> both{"broker-a", "broker-b"};

// RocketMQ's smallest registerNameServerPeriod.
constexpr auto register_period = 10s;

broker_launch launch(const std::string& name, const std::string& store,
                     const std::vector<std::string>& namesrvs) {
  broker_launch how;
  how.name = name;
  how.namesrvs = namesrvs;
  how.store_dir = store;
  how.extra = {"--register-interval-ms=10000"};
  return how;
}

// Both NameServers route `topic` to exactly `brokers`.
bool routes_to(remote_client& client, const std::vector<uint16_t>& ns_ports,
               const std::set<std::string>& brokers) {
  for (auto port : ns_ports)
    if (route_brokers(client, port, topic) != brokers)
      return false;
  return true;
}

// The broker stores and serves a message to queue 0 of `topic`.
void check_serves(remote_client& client, const broker_actor& front,
                  const std::string& body) {
  auto sent = send_plain(client, front, topic, body, 0);
  REQUIRE_MESSAGE(sent, describe(sent.error()));
  CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
  REQUIRE(wait_readable(client, front, topic, 0, sent->queue_offset + 1));
  auto bodies = pull_all(client, front, topic, 0);
  REQUIRE_FALSE(bodies.empty());
  CHECK_EQ(bodies.back(), body);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
    .count();
}

} // namespace

TEST_SUITE("system.broker.cluster") {
  TEST_CASE("two brokers on two NameServers: routes, SIGKILL, a NameServer "
            "restarted empty, every NameServer down") {
    temp_dir dir;
    auto ns1 = start_namesrv();
    auto ns2 = start_namesrv();
    std::vector<std::string> addrs{ns1.addr(), ns2.addr()};
    std::vector<uint16_t> ns_ports{ns1.port, ns2.port};
    auto how_a = launch("broker-a", dir.path() + "/a", addrs);
    auto how_b = launch("broker-b", dir.path() + "/b", addrs);
    auto a = start_broker_node(how_a);
    auto b = start_broker_node(how_b);
    remote_client client;
    auto front_a = connect_broker(client, a.port);
    auto front_b = connect_broker(client, b.port);

    // The cluster's topic, created on each broker as `updateTopic -c` does;
    // each re-registers at once with its new data version.
    create_topic(client, front_a, topic, 4);
    create_topic(client, front_b, topic, 4);
    CHECK(wait_until([&] { return routes_to(client, ns_ports, both); }, 5s));
    check_serves(client, front_a, "to a");
    check_serves(client, front_b, "to b");

    // SIGKILL: each NameServer sees the connection to broker-b drop and
    // removes it from the routes at once (not at the 120 s scan).
    b.proc->signal(SIGKILL);
    auto killed = std::chrono::steady_clock::now();
    CHECK(wait_until([&] { return routes_to(client, ns_ports, {"broker-a"}); },
                     1s));
    MESSAGE("routes without broker-b after " << seconds_since(killed) << " s");
    CHECK_EQ(b.proc->wait(), 128 + SIGKILL);

    // Restarted on its port at once (SO_REUSEADDR), with its topic.
    restart_broker_node(b, how_b);
    front_b = connect_broker(client, b.port);
    CHECK(wait_until([&] { return routes_to(client, ns_ports, both); }, 5s));
    check_serves(client, front_b, "to b again");

    // A NameServer restarted empty on its port: both brokers' heartbeats
    // are answered broker_not_found, and each registers at once.
    ns1.proc->signal(SIGKILL);
    CHECK_EQ(ns1.proc->wait(), 128 + SIGKILL);
    namesrv_launch again;
    again.port = ns1.port;
    ns1 = start_namesrv(again);
    auto restarted = std::chrono::steady_clock::now();
    CHECK(wait_until([&] { return routes_to(client, ns_ports, both); },
                     register_period));
    MESSAGE("both brokers back on the restarted NameServer after "
            << seconds_since(restarted) << " s (bound "
            << register_period.count() << " s)");
    auto ns1h = client.connect(ns1.port);
    CHECK(client.knows_broker(ns1h, "broker-a"));
    CHECK(client.knows_broker(ns1h, "broker-b"));

    // SIGINT stops a broker as SIGTERM does: unregistered from both
    // NameServers, exit 0; it comes back with its topic.
    b.proc->signal(SIGINT);
    CHECK_EQ(b.proc->wait(), 0);
    CHECK(wait_until([&] { return routes_to(client, ns_ports, {"broker-a"}); },
                     2s));
    restart_broker_node(b, how_b);
    front_b = connect_broker(client, b.port);
    CHECK(wait_until([&] { return routes_to(client, ns_ports, both); }, 5s));

    // Every NameServer down: once each broker failed to reach both again,
    // it still serves sends and pulls.
    ns1.proc.reset();
    ns2.proc.reset();
    for (auto* broker : {&a, &b}) {
      std::set<std::string> failed;
      std::string rest;
      while (failed.size() < 2) {
        REQUIRE(broker->proc->wait_for("cannot connect to ", rest));
        failed.insert(rest.substr(0, rest.find(':', rest.find(':') + 1)));
      }
    }
    check_serves(client, front_a, "a without NameServers");
    check_serves(client, front_b, "b without NameServers");
    // And stops cleanly without a NameServer to unregister from.
    a.proc->signal(SIGINT);
    b.proc->signal(SIGTERM);
    CHECK_EQ(a.proc->wait(), 0);
    CHECK_EQ(b.proc->wait(), 0);
  }

} // TEST_SUITE
