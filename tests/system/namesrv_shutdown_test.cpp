// rmq-node's graceful shutdown: SIGTERM saves the KV config and exits 0;
// a restart on the same file serves the same KV config.
#include <csignal>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include "tests/system/namesrv_system_support.hpp"

using namespace rmq::test;

TEST_SUITE("system.namesrv.shutdown") {
  TEST_CASE("SIGTERM exits 0 and the KV config survives a restart") {
    temp_dir dir;
    auto kv_path = dir.path() + "/kvConfig.json";
    {
      auto ns = start_namesrv(kv_path);
      auto res
        = run_admin({"-n", ns.addr(), "updateKvConfig", "-s",
                     "ORDER_TOPIC_CONFIG", "-k", "TopicA", "-v", "broker-a:4"});
      REQUIRE_EQ(res.rc, 0);
      ns.proc->signal(SIGTERM);
      CHECK_EQ(ns.proc->wait(), 0);
    }
    std::ifstream in{kv_path};
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("\"configTable\"") != std::string::npos);
    CHECK(text.str().find("broker-a:4") != std::string::npos);
    auto ns = start_namesrv(kv_path);
    auto res = run_admin({"-n", ns.addr(), "getKvConfig", "-s",
                          "ORDER_TOPIC_CONFIG", "-k", "TopicA"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(res.out, "broker-a:4\n");
    ns.proc->signal(SIGINT);
    CHECK_EQ(ns.proc->wait(), 0);
  }

} // TEST_SUITE
