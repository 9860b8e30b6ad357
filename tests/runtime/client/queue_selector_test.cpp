// Queue choice per send attempt (RocketMQ 5 MQFaultStrategy
// selectOneMessageQueue and its broker filters).
#include "runtime/client/queue_selector.hpp"

#include <map>

#include <doctest/doctest.h>

using namespace rmq;

namespace {

constexpr int64_t ms = 1000000; // ns

/// Two queues on each of brokers a, b, c.
std::vector<message_queue> queues() {
  std::vector<message_queue> result;
  for (auto b : {"a", "b", "c"})
    for (int32_t i = 0; i < 2; ++i)
      result.push_back(message_queue{"T", b, i});
  return result;
}

std::string broker_of(const std::vector<message_queue>& qs,
                      std::optional<size_t> pos) {
  REQUIRE(pos);
  REQUIRE_LT(*pos, qs.size());
  return qs[*pos].broker_name;
}

} // namespace

TEST_SUITE("runtime.queue_selector") {
  TEST_CASE("no queues, no pick") {
    uint32_t index = 0;
    latency_fault_table t;
    CHECK_FALSE(select_queue({}, "", &t, 0, index));
    CHECK_FALSE(select_queue({}, "", nullptr, 0, index));
  }

  TEST_CASE("round robin from the index, which moves past the pick") {
    auto qs = queues();
    for (bool with_faults : {false, true}) {
      CAPTURE(with_faults);
      latency_fault_table t;
      uint32_t index = 4;
      std::map<size_t, int> picks;
      for (int i = 0; i < 60; ++i) {
        auto pos = select_queue(qs, "", with_faults ? &t : nullptr, 0, index);
        REQUIRE(pos);
        CHECK_EQ(*pos, static_cast<size_t>((4 + i) % 6));
        ++picks[*pos];
      }
      CHECK_EQ(index, 64u);
      REQUIRE_EQ(picks.size(), 6u);
      for (auto& kvp : picks)
        CHECK_EQ(kvp.second, 10);
    }
  }

  TEST_CASE("the index wraps around") {
    auto qs = queues();
    uint32_t index = UINT32_MAX;
    auto pos = select_queue(qs, "", nullptr, 0, index);
    REQUIRE(pos);
    CHECK_EQ(*pos, UINT32_MAX % 6);
    CHECK_EQ(index, 0u);
    CHECK_EQ(select_queue(qs, "", nullptr, 0, index), 0u);
  }

  TEST_CASE("the last broker is avoided") {
    auto qs = queues();
    for (bool with_faults : {false, true}) {
      CAPTURE(with_faults);
      latency_fault_table t;
      for (uint32_t start = 0; start < 6; ++start) {
        uint32_t index = start;
        CHECK_NE(broker_of(qs, select_queue(qs, "a", with_faults ? &t : nullptr,
                                            0, index)),
                 "a");
      }
    }
  }

  TEST_CASE("only the last broker left: it is used") {
    std::vector<message_queue> qs{{"T", "a", 0}, {"T", "a", 1}};
    uint32_t index = 0;
    latency_fault_table t;
    CHECK_EQ(broker_of(qs, select_queue(qs, "a", nullptr, 0, index)), "a");
    CHECK_EQ(broker_of(qs, select_queue(qs, "a", &t, 0, index)), "a");
  }

  TEST_CASE("unavailable brokers are avoided until they are back") {
    auto qs = queues();
    latency_fault_table t;
    t.update({"a", 600, false, true}, 0); // out for 2 s
    t.update({"b", 0, true, true}, 0);    // out for 10 s
    for (uint32_t start = 0; start < 6; ++start) {
      uint32_t index = start;
      CHECK_EQ(broker_of(qs, select_queue(qs, "", &t, 0, index)), "c");
    }
    // Unavailable and the last one: still c.
    uint32_t index = 0;
    CHECK_EQ(broker_of(qs, select_queue(qs, "c", &t, 0, index)), "a");
    // At 2 s broker a is back.
    index = 0;
    CHECK_EQ(broker_of(qs, select_queue(qs, "", &t, 2000 * ms, index)), "a");
    // Without fault tolerance the table is not consulted.
    index = 2;
    CHECK_EQ(broker_of(qs, select_queue(qs, "", nullptr, 0, index)), "b");
  }

  TEST_CASE("all unavailable: a reachable broker, not the last one") {
    auto qs = queues();
    latency_fault_table t;
    t.update({"a", 0, true, false}, 0);
    t.update({"b", 0, true, true}, 0);
    t.update({"c", 0, true, false}, 0);
    for (uint32_t start = 0; start < 6; ++start) {
      uint32_t index = start;
      CHECK_EQ(broker_of(qs, select_queue(qs, "", &t, 0, index)), "b");
    }
    // The only reachable broker was the last one: any queue, in turn.
    uint32_t index = 0;
    auto pos = select_queue(qs, "b", &t, 0, index);
    REQUIRE(pos);
    // Two failed laps of 6 tries each, then the next queue.
    CHECK_EQ(*pos, 0u);
    CHECK_EQ(index, 13u);
  }

  TEST_CASE("everything faulty: still a queue, in turn") {
    auto qs = queues();
    latency_fault_table t;
    for (auto b : {"a", "b", "c"})
      t.update({b, 0, true, false}, 0);
    std::map<std::string, int> brokers;
    uint32_t index = 0;
    for (int i = 0; i < 6; ++i) {
      auto pos = select_queue(qs, "", &t, 0, index);
      REQUIRE(pos);
      ++brokers[qs[*pos].broker_name];
    }
    CHECK_EQ(brokers.size(), 3u);
  }
}
