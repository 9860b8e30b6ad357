// The latency-fault steps and table (RocketMQ 5 MQFaultStrategy,
// LatencyFaultToleranceImpl).
#include "runtime/client/latency_fault_table.hpp"

#include <doctest/doctest.h>

using namespace rmq;

namespace {

constexpr int64_t ms = 1000000; // ns

fault_report report(const std::string& broker, int64_t latency,
                    bool isolation = false, bool reachable = true) {
  return fault_report{broker, latency, isolation, reachable};
}

} // namespace

TEST_SUITE("runtime.latency_fault_table") {
  TEST_CASE("each step starts at its latency bound") {
    fault_policy p;
    struct {
      int64_t latency;
      int64_t expected;
    } cases[] = {
      {0, 0},        {49, 0},        {50, 0},        {99, 0},
      {100, 0},      {549, 0},       {550, 2000},    {1799, 2000},
      {1800, 5000},  {2999, 5000},   {3000, 6000},   {4999, 6000},
      {5000, 10000}, {14999, 10000}, {15000, 30000}, {1000000, 30000},
      {-1, 0},
    };
    for (auto& c : cases) {
      CAPTURE(c.latency);
      CHECK_EQ(not_available_ms(p, c.latency, false), c.expected);
    }
  }

  TEST_CASE("isolation counts as a latency of 10 s") {
    fault_policy p;
    CHECK_EQ(not_available_ms(p, 0, true), 10000);
    // The reported latency does not matter.
    CHECK_EQ(not_available_ms(p, 20000, true), 10000);
  }

  TEST_CASE("a custom policy is used") {
    fault_policy p;
    p.latency_max = {10, 20};
    p.not_available_duration = {100, 200};
    CHECK_EQ(not_available_ms(p, 9, false), 0);
    CHECK_EQ(not_available_ms(p, 10, false), 100);
    CHECK_EQ(not_available_ms(p, 25, false), 200);
    CHECK_EQ(not_available_ms(p, 0, true), 200);
  }

  TEST_CASE("unknown brokers are available and reachable") {
    latency_fault_table t;
    CHECK(t.is_available("b", 0));
    CHECK(t.is_reachable("b"));
    CHECK(t.snapshot().items.empty());
  }

  TEST_CASE("a slow send keeps the broker out for its duration") {
    latency_fault_table t;
    CHECK(t.update(report("b", 600), 1000 * ms));
    CHECK_FALSE(t.is_available("b", 1000 * ms));
    CHECK_FALSE(t.is_available("b", 2999 * ms));
    CHECK(t.is_available("b", 3000 * ms));
    auto snap = t.snapshot();
    REQUIRE_EQ(snap.items.size(), 1u);
    CHECK_EQ(snap.items[0].broker_name, "b");
    CHECK_EQ(snap.items[0].latency_ms, 600);
    CHECK_EQ(snap.items[0].available_at_ns, 3000 * ms);
    CHECK(snap.items[0].reachable);
  }

  TEST_CASE("a fast send is no change and ends no isolation") {
    latency_fault_table t;
    CHECK_FALSE(t.update(report("b", 10), 0));
    CHECK(t.is_available("b", 0));
    CHECK(t.update(report("b", 0, true), 0));
    CHECK_FALSE(t.update(report("b", 5), 1 * ms));
    CHECK_FALSE(t.is_available("b", 9999 * ms));
    CHECK(t.is_available("b", 10000 * ms));
    // The latency is overwritten all the same.
    CHECK_EQ(t.snapshot().items.at(0).latency_ms, 5);
  }

  TEST_CASE("available-again time only moves later") {
    latency_fault_table t;
    CHECK(t.update(report("b", 0, true), 0)); // out until 10 s
    // 2 s from 1 s ends before 10 s: no change.
    CHECK_FALSE(t.update(report("b", 600), 1000 * ms));
    CHECK_EQ(t.snapshot().items.at(0).available_at_ns, 10000 * ms);
    // 30 s from 1 s ends later: a change.
    CHECK(t.update(report("b", 20000), 1000 * ms));
    CHECK_EQ(t.snapshot().items.at(0).available_at_ns, 31000 * ms);
  }

  TEST_CASE("reachability is overwritten and a flip is a change") {
    latency_fault_table t;
    CHECK(t.update(report("b", 10, false, false), 0));
    CHECK_FALSE(t.is_reachable("b"));
    CHECK(t.is_available("b", 0));
    CHECK_FALSE(t.update(report("b", 10, false, false), 0));
    CHECK(t.update(report("b", 10), 0));
    CHECK(t.is_reachable("b"));
    CHECK_FALSE(t.update(report("b", 10), 0));
  }

  TEST_CASE("remove and assign") {
    latency_fault_table t;
    t.update(report("a", 600), 0);
    t.update(report("b", 0, true, false), 0);
    auto snap = t.snapshot();
    REQUIRE_EQ(snap.items.size(), 2u);
    t.remove("a");
    CHECK(t.is_available("a", 0));
    CHECK_EQ(t.snapshot().items.size(), 1u);
    latency_fault_table copy;
    copy.assign(snap);
    CHECK_FALSE(copy.is_available("a", 0));
    CHECK_FALSE(copy.is_reachable("b"));
    copy.assign({});
    CHECK(copy.is_available("a", 0));
    CHECK(copy.is_reachable("b"));
  }
}
