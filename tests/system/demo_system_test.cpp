// README command 1: rmq-demo runs the whole story (two NameServers, two
// brokers, the producer, a consumer group of two processes, a broker
// killed and restarted) and exits 0 only when nothing acknowledged was
// lost.
#include <string>

#include <doctest/doctest.h>

#include "tests/support/child_process.hpp"

using namespace std::chrono_literals;

TEST_SUITE("system.demo") {
  TEST_CASE("rmq-demo passes with lost 0") {
    std::string out;
    auto rc = rmq::test::run_command({rmq::test::bin_dir() + "/rmq-demo"}, out,
                                     90s);
    INFO(out);
    CHECK(rc == 0);
    auto summary = out.find("\n=== summary ===\n");
    REQUIRE(summary != std::string::npos);
    auto tail = out.substr(summary);
    CHECK(tail.find(", lost 0\n") != std::string::npos);
    CHECK(tail.find("[FAIL]") == std::string::npos);
    CHECK(tail.find("e2e latency (consumed - born): p50 ")
          != std::string::npos);
    CHECK(tail.find("\nPASS\n") != std::string::npos);
  }
}
