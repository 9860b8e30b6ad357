// A NameServer node's supervisor on the virtual clock: the exit of any of
// its actors (each holds state or is held by handle) stops the node with an
// error naming it; rmq-node turns that into exit code 1. Respawning is
// tested on the supervisor itself (supervisor_test.cpp).
#include <string>

#include "caf/system_messages.hpp"

#include "tests/actors/namesrv/namesrv_fixture.hpp"
#include "tests/support/supervisor_probe.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

struct supervised_fixture : namesrv_fixture {
  supervisor_probe probe{*this, node.supervisor};
};

} // namespace

TEST_SUITE("namesrv.supervision") {
  TEST_CASE_FIXTURE(supervised_fixture,
                    "the exit of any actor of the node stops the node, "
                    "naming it") {
    std::string name;
    SUBCASE("front") {
      name = "namesrv_frontend";
    }
    SUBCASE("scan timer") {
      name = "scan_timer";
    }
    SUBCASE("batcher") {
      name = "unregistration_batcher";
    }
    SUBCASE("reader") {
      name = "route_reader";
    }
    SUBCASE("writer") {
      name = "route_writer";
    }
    SUBCASE("addrs") {
      name = "broker_addr_table";
    }
    SUBCASE("clusters") {
      name = "cluster_table";
    }
    SUBCASE("live") {
      name = "broker_live_table";
    }
    SUBCASE("topics") {
      name = "topic_queue_table";
    }
    SUBCASE("filters") {
      name = "filter_server_table";
    }
    SUBCASE("kv") {
      name = "kv_config_table";
    }
    CAPTURE(name);
    CHECK_FALSE(probe.failure());
    probe.kill(name);
    auto failure = probe.failure();
    REQUIRE(failure);
    CHECK_NE(failure->find("actor " + name + " exited"), std::string::npos);
    CHECK_NE(failure->find("kill"), std::string::npos);
  }

  TEST_CASE_FIXTURE(supervised_fixture,
                    "the supervisor reports every actor of the node") {
    auto dump = nlohmann::json::parse(
      ask<std::string>(node.supervisor, dump_atom::value));
    REQUIRE_EQ(dump["children"].size(), node.actors.size());
    for (auto& row : dump["children"]) {
      CHECK_FALSE(row["respawn"].get<bool>());
      CHECK(probe.current(row["name"]));
    }
  }

} // TEST_SUITE
