// A table that answers late, on the virtual clock: the scan timer and the
// front actor log the timeout and keep serving, and nothing it reported in
// the meantime is lost (the brokers still expire).
#include <string>
#include <vector>

#include "caf/event_based_actor.hpp"

#include "tests/actors/namesrv/namesrv_fixture.hpp"
#include "tests/actors/namesrv/stalling_live_table.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

using capture_actor = caf::typed_actor<
  caf::reacts_to<std::vector<unregistration>>,
  caf::replies_to<caf::get_atom>::with<std::vector<std::string>>>;

struct capture_state {
  std::vector<std::string> addrs;
  static inline const char* name = "capture";
};

// Stands in for the batcher: remembers every address handed to it.
capture_actor::behavior_type
capture(capture_actor::stateful_pointer<capture_state> self) {
  return {
    [=](const std::vector<unregistration>& xs) {
      for (auto& x : xs)
        self->state.addrs.push_back(x.request.broker_addr);
    },
    [=](caf::get_atom) { return self->state.addrs; },
  };
}

// A broker's actor: registers with `ns` and stays until killed, so the
// front actor watches it as the broker's connection.
caf::behavior broker_channel(caf::event_based_actor* self, namesrv_actor ns,
                             register_broker_request req) {
  self->request(ns, caf::infinite, req)
    .then([](const register_broker_result&) {},
          [](const caf::error& err) {
            FAIL("registration failed: " << to_string(err));
          });
  return {[](caf::ok_atom) {}};
}

struct timeout_fixture : namesrv_fixture {
  // A front actor wired to the node's actors, but to `live` as its
  // liveness table.
  namesrv_actor spawn_front(const broker_live_table_actor& live) {
    namesrv_tables t{
      actor_named<broker_addr_table_actor>("broker_addr_table"),
      actor_named<cluster_table_actor>("cluster_table"),
      live,
      actor_named<topic_queue_table_actor>("topic_queue_table"),
      actor_named<filter_server_table_actor>("filter_server_table"),
      actor_named<kv_config_table_actor>("kv_config_table")};
    return spawn(
      namesrv_frontend, t, actor_named<route_reader_actor>("route_reader"),
      actor_named<route_writer_actor>("route_writer"),
      actor_named<unregistration_batcher_actor>("unregistration_batcher"),
      actor_named<scan_timer_actor>("scan_timer"), namesrv_frontend_options{});
  }
};

} // namespace

TEST_SUITE("namesrv.table_timeout") {
  TEST_CASE_FIXTURE(deterministic_fixture,
                    "a late liveness table does not stop the scan timer and "
                    "the broker expires on the next scan") {
    auto live = spawn(broker_live_table, caf::timespan{120s});
    auto staller = spawn(stalling_live_table, live, caf::timespan{12s});
    auto batcher = spawn(capture);
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    reg.heartbeat_timeout_ms = 3'000; // expired at the first scan
    self->send(live, caf::put_atom::value, reg, caf::actor_addr{});
    self->send(staller, stall_atom::value);
    sched.run();
    auto scanner
      = spawn(scan_timer, caf::timespan{5s}, as_live_table(staller),
              caf::actor_cast<unregistration_batcher_actor>(batcher));
    // The scan at 5 s reaches the table at 17 s, after its 10 s timeout: the
    // table marked the broker reported, but the answer went nowhere.
    advance_time(15s, 1s);
    auto dump
      = nlohmann::json::parse(ask<std::string>(scanner, dump_atom::value));
    CHECK_EQ(dump["failed_scans"], 1);
    CHECK(ask<std::vector<std::string>>(batcher, caf::get_atom::value).empty());
    advance_time(10s, 1s);
    CHECK_EQ(ask<std::vector<std::string>>(batcher, caf::get_atom::value),
             std::vector<std::string>{addr0});
    dump = nlohmann::json::parse(ask<std::string>(scanner, dump_atom::value));
    CHECK_EQ(dump["failed_scans"], 1);
    CHECK_EQ(dump["expired"], 1);
    // And it goes on scanning every 5 s.
    auto scans = dump["scans"].get<int>();
    advance_time(20s, 1s);
    dump = nlohmann::json::parse(ask<std::string>(scanner, dump_atom::value));
    CHECK_EQ(dump["scans"].get<int>(), scans + 4);
  }

  TEST_CASE_FIXTURE(deterministic_fixture,
                    "a scan timer that replaces one killed mid-scan loses no "
                    "expiry") {
    auto live = spawn(broker_live_table, caf::timespan{120s});
    auto staller = spawn(stalling_live_table, live, caf::timespan{12s});
    auto batcher = spawn(capture);
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    reg.heartbeat_timeout_ms = 3'000;
    self->send(live, caf::put_atom::value, reg, caf::actor_addr{});
    self->send(staller, stall_atom::value);
    sched.run();
    auto as_batcher = caf::actor_cast<unregistration_batcher_actor>(batcher);
    auto first = spawn(scan_timer, caf::timespan{5s}, as_live_table(staller),
                       as_batcher);
    advance_time(6s, 1s); // its scan at 5 s is stuck in the table
    caf::anon_send_exit(first, caf::exit_reason::kill);
    sched.run();
    // What the supervisor does.
    auto second = spawn(scan_timer, caf::timespan{5s}, as_live_table(staller),
                        as_batcher);
    advance_time(20s, 1s);
    CHECK_EQ(ask<std::vector<std::string>>(batcher, caf::get_atom::value),
             std::vector<std::string>{addr0});
    auto dump
      = nlohmann::json::parse(ask<std::string>(second, dump_atom::value));
    CHECK_EQ(dump["expired"], 1);
  }

  TEST_CASE_FIXTURE(timeout_fixture,
                    "the front actor survives a liveness table timeout and "
                    "the lost broker still expires") {
    auto live = actor_named<broker_live_table_actor>("broker_live_table");
    auto staller = spawn(stalling_live_table, live, caf::timespan{15s});
    auto front = spawn_front(as_live_table(staller));
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    auto channel = spawn(broker_channel, front, reg);
    CHECK(routed("T1"));
    // The connection drops while the table is stuck for 15 s.
    self->send(staller, stall_atom::value);
    sched.run();
    caf::anon_send_exit(channel, caf::exit_reason::kill);
    sched.run();
    advance_time(12s, 1s); // past the front actor's 10 s table timeout
    auto dump
      = nlohmann::json::parse(ask<std::string>(front, dump_atom::value));
    CHECK_EQ(dump["actors"][0]["connections_lost"], 1);
    CHECK(ask<cluster_info>(front, get_broker_cluster_info_request{})
            .broker_addr_table.count("broker-a"));
    // Not unregistered at once, as the answer was lost, but by the scan.
    advance_time(120s, 5s);
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(timeout_fixture,
                    "an unregistration through a stuck table answers the "
                    "client with a timeout") {
    auto live = actor_named<broker_live_table_actor>("broker_live_table");
    auto staller = spawn(stalling_live_table, live, caf::timespan{15s});
    auto front = spawn_front(as_live_table(staller));
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    self->send(staller, stall_atom::value);
    sched.run();
    auto rh = self->request(front, caf::infinite, unregistration_of(reg));
    sched.run();
    advance_time(11s, 1s);
    REQUIRE_FALSE(self->mailbox().empty());
    caf::error err;
    rh.receive([](caf::ok_atom) { FAIL("expected a timeout"); },
               [&](const caf::error& x) { err = x; });
    CHECK(err == caf::sec::request_timeout);
    // The front actor still serves, and the request was not applied.
    CHECK(ask<cluster_info>(front, get_broker_cluster_info_request{})
            .broker_addr_table.count("broker-a"));
  }

} // TEST_SUITE
