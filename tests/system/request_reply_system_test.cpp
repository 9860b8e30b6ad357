// Request-reply between two processes (apps/examples/request_reply_example
// against a real NameServer and broker): a requester's sync and async
// requests each get the reply a replier process sends with
// create_reply_message, and with no replier running every request ends
// with request_timeout after its timeout.
#include <signal.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "runtime/process/child_process.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

constexpr const char* topic = "TopicRequestReply";

struct cluster {
  temp_dir dir;
  namesrv_process ns = start_namesrv();
  broker_process broker;
  remote_client client;

  cluster() {
    broker = start_broker_node(one_broker(ns, dir.path() + "/a"));
    auto front = connect_broker(client, broker.port);
    create_routed_topic(client, front, ns.port, topic, 2);
    // The replier's producer needs the reply topic's route.
    REQUIRE(wait_until(
      [&] {
        return route_brokers(client, ns.port, "DefaultCluster_REPLY_TOPIC")
                 .size()
               == 1;
      },
      10s));
  }

  std::vector<std::string> example(const std::string& role) const {
    return {bin_dir() + "/request_reply_example", "--role=" + role,
            "--namesrv=" + ns.addr(), "--topic=" + std::string{topic},
            "--group=RRSystem"};
  }
};

} // namespace

TEST_SUITE("system.request_reply") {
  TEST_CASE("requests from one process get the replies another process "
            "sends") {
    cluster c;
    auto argv = c.example("replier");
    argv.push_back("--count=0");
    child_process replier{argv};
    std::string rest;
    REQUIRE(replier.wait_for("replier ready", rest, 30s));
    constexpr int n = 5;
    for (bool async : {false, true}) {
      CAPTURE(async);
      auto req = c.example("requester");
      req.insert(req.end(),
                 {"--count=" + std::to_string(n), "--timeout-ms=10000"});
      if (async)
        req.push_back("--async");
      std::string out;
      auto rc = run_command(req, out, 60s);
      INFO(out);
      CHECK(rc == 0);
      std::set<std::string> got;
      for (auto& line : output_lines(out))
        got.insert(line);
      for (int i = 0; i < n; ++i) {
        auto q = "q" + std::to_string(i);
        CHECK(got.count("reply " + q + " -> reply to " + q) == 1);
      }
    }
    replier.signal(SIGTERM);
    CHECK(replier.wait(20s) == 0);
  }

  TEST_CASE("with no replier a request fails with request_timeout after its "
            "timeout") {
    cluster c;
    auto req = c.example("requester");
    req.insert(req.end(), {"--count=2", "--timeout-ms=1500"});
    std::string out;
    auto begin = std::chrono::steady_clock::now();
    auto rc = run_command(req, out, 60s);
    auto took = std::chrono::steady_clock::now() - begin;
    INFO(out);
    CHECK(rc == 1);
    auto lines = output_lines(out);
    REQUIRE(lines.size() == 2);
    for (int i = 0; i < 2; ++i) {
      auto& line = lines[i];
      CHECK(line.rfind("failed q" + std::to_string(i) + ": ", 0) == 0);
      CHECK(line.find("request_timeout") != std::string::npos);
    }
    // Two sync requests, each waiting its whole timeout.
    CHECK(took >= 3s);
  }
}
