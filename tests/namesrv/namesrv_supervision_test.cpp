// The node's supervisor on the virtual clock: a killed scan timer is
// respawned and does its job; the exit of an actor with state stops the
// node with an error naming it (rmq-node turns that into exit code 1).
#include <string>

#include "caf/system_messages.hpp"

#include "actors/common/supervisor.hpp"
#include "tests/namesrv/namesrv_fixture.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

struct supervised_fixture : namesrv_fixture {
  supervised_fixture() {
    self->monitor(node.supervisor);
  }

  caf::actor current(const std::string& name) {
    return ask<caf::actor>(node.supervisor, caf::get_atom::value, name);
  }

  void kill(const std::string& name) {
    caf::anon_send_exit(current(name), caf::exit_reason::kill);
    sched.run();
  }

  /// The supervisor's exit reason, or none while it runs.
  caf::optional<std::string> node_failure() {
    if (self->mailbox().empty())
      return caf::none;
    std::string result;
    self->receive(
      [&](const caf::down_msg& dm) { result = sys.render(dm.reason); });
    return result;
  }

  nlohmann::json supervisor_dump() {
    return nlohmann::json::parse(
      ask<std::string>(node.supervisor, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("namesrv.supervision") {

TEST_CASE_FIXTURE(supervised_fixture,
                  "a killed scan timer is respawned and brokers still "
                  "expire") {
  auto first = current("scan_timer");
  kill("scan_timer");
  CHECK_FALSE(node_failure());
  auto second = current("scan_timer");
  REQUIRE(second);
  CHECK_NE(first, second);
  auto rows = supervisor_dump()["children"];
  REQUIRE_EQ(rows.size(), node.actors.size());
  CHECK_EQ(rows[1]["name"], "scan_timer");
  CHECK_EQ(rows[1]["restarts"], 1);
  register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
  advance_time(120s, 5s);
  CHECK(routed("T1"));
  advance_time(5s, 5s);
  CHECK_FALSE(routed("T1"));
  auto dump = nlohmann::json::parse(
    ask<std::string>(caf::actor_cast<dumpable_actor>(second),
                     dump_atom::value));
  CHECK_EQ(dump["expired"], 1);
  CHECK_FALSE(node_failure());
}

TEST_CASE_FIXTURE(supervised_fixture,
                  "the exit of an actor with state stops the node, naming "
                  "it") {
  std::string name;
  SUBCASE("front") { name = "namesrv_frontend"; }
  SUBCASE("batcher") { name = "unregistration_batcher"; }
  SUBCASE("reader") { name = "route_reader"; }
  SUBCASE("writer") { name = "route_writer"; }
  SUBCASE("addrs") { name = "broker_addr_table"; }
  SUBCASE("clusters") { name = "cluster_table"; }
  SUBCASE("live") { name = "broker_live_table"; }
  SUBCASE("topics") { name = "topic_queue_table"; }
  SUBCASE("filters") { name = "filter_server_table"; }
  SUBCASE("kv") { name = "kv_config_table"; }
  CAPTURE(name);
  CHECK_FALSE(node_failure());
  kill(name);
  auto failure = node_failure();
  REQUIRE(failure);
  CHECK_NE(failure->find("actor " + name + " exited"), std::string::npos);
  CHECK_NE(failure->find("kill"), std::string::npos);
}

TEST_CASE_FIXTURE(supervised_fixture,
                  "a scan timer that keeps dying stops the node") {
  auto limit = supervisor_options{}.max_restarts;
  for (size_t i = 0; i < limit; ++i) {
    kill("scan_timer");
    REQUIRE_FALSE(node_failure());
  }
  kill("scan_timer");
  auto failure = node_failure();
  REQUIRE(failure);
  CHECK_NE(failure->find("actor scan_timer exited"), std::string::npos);
}

TEST_CASE_FIXTURE(supervised_fixture,
                  "respawns older than the restart window are forgiven") {
  auto opts = supervisor_options{};
  for (size_t i = 0; i < opts.max_restarts; ++i)
    kill("scan_timer");
  advance_time(opts.restart_window, 5s);
  kill("scan_timer");
  CHECK_FALSE(node_failure());
  CHECK_EQ(supervisor_dump()["children"][1]["restarts"],
           opts.max_restarts + 1);
}

} // TEST_SUITE
