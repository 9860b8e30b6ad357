// A broker process with mutual TLS (--tls-dir), registered with a TLS
// NameServer: a client with a cluster certificate sends and pulls; a plain
// client and one with another CA's certificate are refused; the 32-byte
// BASP header claiming a 4 GiB payload is closed before BASP reads it, so
// it costs the broker no memory (docs/security.md).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicTls";

struct broker_tls_fixture {
  temp_dir dir{"rmq-broker-tls-test"};
  std::string cluster = dir.path() + "/cluster";
  std::string other = dir.path() + "/other";
  namesrv_process ns;
  broker_process broker;

  broker_tls_fixture() {
    make_dev_certs(cluster, {"node", "broker", "client"});
    make_dev_certs(other, {"client"});
    namesrv_launch ns_how;
    ns_how.tls_dir = cluster + "/node";
    ns = start_namesrv(ns_how);
    broker_launch how;
    how.namesrvs = {ns.addr()};
    how.store_dir = dir.path() + "/store";
    how.tls_dir = cluster + "/broker";
    broker = start_broker_node(how); // registered over TLS
  }

  // A cluster member sends one message to queue 0 and reads it back.
  void check_serves(remote_client& client, const std::string& body) {
    auto front = connect_broker(client, broker.port);
    auto sent = send_plain(client, front, topic, body, 0);
    REQUIRE_MESSAGE(sent, describe(sent.error()));
    CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
    REQUIRE(wait_readable(client, front, topic, 0, sent->queue_offset + 1));
    auto bodies = pull_all(client, front, topic, 0);
    REQUIRE_FALSE(bodies.empty());
    CHECK_EQ(bodies.back(), body);
  }
};

} // namespace

TEST_SUITE("system.broker.tls") {
  TEST_CASE_FIXTURE(broker_tls_fixture, "a TLS broker serves TLS clients, "
                                        "refuses others and the 4 GiB header") {
    remote_client member{cluster + "/client"};
    check_serves(member, "over TLS");
    // Its routes are on the TLS NameServer.
    CHECK_EQ(route_brokers(member, ns.port, topic),
             std::set<std::string>{"broker-a"});
    {
      remote_client plain;
      auto front = plain.try_connect_to<broker_actor>(broker.port);
      REQUIRE_FALSE(front);
      CHECK_EQ(front.error(), caf::sec::disconnect_during_handshake);
    }
    {
      remote_client stranger{other + "/client"};
      auto front = stranger.try_connect_to<broker_actor>(broker.port);
      REQUIRE_FALSE(front);
      CHECK_EQ(front.error(), caf::sec::disconnect_during_handshake);
    }
    check_serves(member, "after the refusals");
    CHECK(rss_growth_from_oversize_headers(*broker.proc, broker.port)
          < 4 * 1024);
    CHECK_EQ(broker.proc->wait(0ms), -1); // still running
    check_serves(member, "after the headers");
    remote_client newcomer{cluster + "/client"};
    check_serves(newcomer, "from a newcomer");
  }

} // TEST_SUITE
