// The latency-fault table actor on the virtual clock: RocketMQ's
// not-available durations, isolation, pushes to listeners only on change,
// dumps.
#include "actors/client/instance/latency_fault_service.hpp"

#include <chrono>
#include <memory>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

using pushes = std::vector<fault_snapshot>;

fault_listener_actor::behavior_type recorder(fault_listener_actor::pointer,
                                             std::shared_ptr<pushes> log) {
  return {
    [log](fault_atom, const fault_snapshot& x) { log->push_back(x); },
  };
}

struct fixture : test::deterministic_fixture {
  latency_fault_service_actor faults = spawn(latency_fault_service,
                                             fault_policy{});

  std::shared_ptr<pushes> log = std::make_shared<pushes>();

  fault_listener_actor listener = spawn(recorder, log);

  fixture() {
    caf::anon_send(faults, caf::subscribe_atom::value, listener);
    sched.run();
  }

  void report(const std::string& broker, int64_t latency_ms,
              bool isolation = false, bool reachable = true) {
    caf::anon_send(faults,
                   fault_report{broker, latency_ms, isolation, reachable});
    sched.run();
  }

  int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
             sched.clock().now().time_since_epoch())
      .count();
  }

  /// Whether a send loop holding the actor's table would use `broker` now.
  bool available(const std::string& broker) {
    latency_fault_table copy;
    copy.assign(ask<fault_snapshot>(faults, fault_atom::value));
    return copy.is_available(broker, now_ns());
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(faults, dump_atom::value));
  }

  nlohmann::json broker_row(const std::string& broker) {
    auto d = dump();
    for (auto& row : d["brokers"])
      if (row["broker_name"] == broker)
        return row;
    FAIL("no dump row for " << broker);
    return {};
  }
};

} // namespace

TEST_SUITE("client.latency_fault_service") {
  TEST_CASE_FIXTURE(fixture, "a 600 ms send keeps the broker out for 2 s") {
    report("a", 600);
    CHECK_FALSE(available("a"));
    CHECK(available("b"));
    CHECK_EQ(broker_row("a")["available_in_ms"], 2000);
    CHECK_EQ(broker_row("a")["latency_ms"], 600);
    advance_time(1999ms, 1ms);
    CHECK_FALSE(available("a"));
    CHECK_EQ(broker_row("a")["available_in_ms"], 1);
    advance_time(1ms, 1ms);
    CHECK(available("a"));
    CHECK_EQ(broker_row("a")["available_in_ms"], 0);
    // Coming back is no push: listeners see it on their own clock.
    CHECK_EQ(log->size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "isolation keeps the broker out for 10 s") {
    // RocketMQ: isolation counts as a 10,000 ms latency, whose step
    // (latencyMax 5000) gives a 10,000 ms not-available duration.
    report("a", 3, true);
    CHECK_EQ(broker_row("a")["available_in_ms"], 10000);
    advance_time(9999ms, 1ms);
    CHECK_FALSE(available("a"));
    advance_time(1ms, 1ms);
    CHECK(available("a"));
  }

  TEST_CASE_FIXTURE(fixture, "the longest steps: 5 s gives 10 s, 15 s 30 s") {
    report("a", 5000);
    report("b", 15000);
    CHECK_EQ(broker_row("a")["available_in_ms"], 10000);
    CHECK_EQ(broker_row("b")["available_in_ms"], 30000);
    advance_time(10s, 1s);
    CHECK(available("a"));
    CHECK_FALSE(available("b"));
    advance_time(20s, 1s);
    CHECK(available("b"));
  }

  TEST_CASE_FIXTURE(fixture, "listeners get the table only on change") {
    report("a", 10); // fast: no change
    CHECK(log->empty());
    report("a", 600); // out: change
    REQUIRE_EQ(log->size(), 1u);
    REQUIRE_EQ(log->back().items.size(), 1u);
    CHECK_EQ(log->back().items[0].broker_name, "a");
    CHECK_EQ(log->back().items[0].latency_ms, 600);
    report("a", 10);  // latency only: no push
    report("a", 600); // again at the same time: no change
    CHECK_EQ(log->size(), 1u);
    advance_time(1ms, 1ms);
    report("a", 600); // 2 s from 1 ms later ends later: change
    CHECK_EQ(log->size(), 2u);
    report("b", 20, false, false); // unreachable: change
    REQUIRE_EQ(log->size(), 3u);
    CHECK_EQ(log->back().items.size(), 2u);
    report("b", 20, false, false); // still unreachable: no push
    CHECK_EQ(log->size(), 3u);
    report("b", 20); // reachable again: change
    CHECK_EQ(log->size(), 4u);
    auto d = dump();
    CHECK_EQ(d["actor"], "latency_fault_service");
    CHECK_EQ(d["reports"], 8);
    CHECK_EQ(d["pushes"], 4);
    CHECK_EQ(d["listeners"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "an isolation inside a longer one is no change") {
    report("a", 20000); // 30 s
    CHECK_EQ(log->size(), 1u);
    advance_time(1s, 1s);
    report("a", 0, true); // 10 s from now: inside the 30 s
    CHECK_EQ(log->size(), 1u);
    CHECK_EQ(broker_row("a")["available_in_ms"], 29000);
  }

  TEST_CASE_FIXTURE(fixture, "a subscriber twice gets one push; a dead "
                             "listener is dropped") {
    caf::anon_send(faults, caf::subscribe_atom::value, listener);
    sched.run();
    report("a", 600);
    CHECK_EQ(log->size(), 1u);
    caf::anon_send_exit(listener, caf::exit_reason::user_shutdown);
    sched.run();
    CHECK_EQ(dump()["listeners"], 0);
    report("b", 600);
    CHECK_EQ(log->size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "unreachable brokers show in the dump") {
    report("a", 3000, false, false);
    auto row = broker_row("a");
    CHECK_FALSE(row["reachable"].get<bool>());
    CHECK_EQ(row["available_in_ms"], 6000);
  }
}
