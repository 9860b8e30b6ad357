// The queue lock table on the virtual clock: grants, refusals while another
// client holds a queue, take-over after the 60 s expiry, renewal, unlock by
// the owner only, dumps.
#include "actors/broker/table/queue_lock_table.hpp"

#include <chrono>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

client_queue q(int id) {
  return client_queue{"T", "broker-a", id};
}

struct fixture : test::deterministic_fixture {
  queue_lock_table_actor locks = spawn(queue_lock_table,
                                       default_rebalance_lock_max_live_time);

  std::vector<client_queue> lock(const std::string& client,
                                 std::vector<client_queue> queues,
                                 const std::string& group = "G") {
    return ask<locked_queues>(locks, lock_batch_request{group, client, queues})
      .queues;
  }

  void unlock(const std::string& client, std::vector<client_queue> queues) {
    ask<caf::ok_atom>(locks, unlock_batch_request{"G", client, queues});
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(locks, dump_atom::value));
  }
};

using queues = std::vector<client_queue>;

} // namespace

TEST_SUITE("broker.queue_lock_table") {
  TEST_CASE_FIXTURE(fixture, "a free queue is granted, a held one refused") {
    CHECK_EQ(lock("c1", {q(1), q(2)}), (queues{q(1), q(2)}));
    CHECK_EQ(lock("c2", {q(2), q(3)}), (queues{q(3)}));
    // Groups lock independently.
    CHECK_EQ(lock("c2", {q(2)}, "H"), (queues{q(2)}));
    auto d = dump();
    CHECK_EQ(d["actor"], "queue_lock_table");
    CHECK_EQ(d["locks"].size(), 4u);
    CHECK_EQ(d["granted"], 4);
    CHECK_EQ(d["refused"], 1);
    CHECK_EQ(d["max_live_time_ms"], 60000);
  }

  TEST_CASE_FIXTURE(fixture, "a lock expires after 60 s without renewal, "
                             "and a renewed one does not") {
    lock("c1", {q(1), q(2)});
    advance_time(30s, 1s);
    CHECK_EQ(lock("c1", {q(1)}), (queues{q(1)})); // renews q1 only
    advance_time(30s, 1s);
    // q2 is 60 s old: not yet expired (RocketMQ: older than the live time).
    CHECK_EQ(lock("c2", {q(1), q(2)}), queues{});
    advance_time(1s, 1s);
    CHECK_EQ(lock("c2", {q(1), q(2)}), (queues{q(2)}));
    CHECK_EQ(lock("c1", {q(2)}), queues{}); // c2 holds it now
    auto d = dump();
    for (auto& row : d["locks"])
      CHECK_FALSE(row["expired"].get<bool>());
  }

  TEST_CASE_FIXTURE(fixture, "the holder renews its own expired lock") {
    lock("c1", {q(1)});
    advance_time(90s, 10s);
    CHECK(dump()["locks"][0]["expired"].get<bool>());
    CHECK_EQ(lock("c1", {q(1)}), (queues{q(1)}));
    CHECK_EQ(lock("c2", {q(1)}), queues{});
  }

  TEST_CASE_FIXTURE(fixture, "a lock without client id or group is refused") {
    auto err = ask_error<locked_queues>(locks,
                                        lock_batch_request{"G", "", {q(1)}});
    CHECK(err == errc::invalid_parameter);
    err = ask_error<locked_queues>(locks, lock_batch_request{"", "c", {q(1)}});
    CHECK(err == errc::invalid_parameter);
    CHECK(dump()["locks"].empty());
  }

  TEST_CASE_FIXTURE(fixture, "only the owner unlocks") {
    lock("c1", {q(1), q(2)});
    unlock("c2", {q(1), q(2)});
    CHECK_EQ(lock("c2", {q(1), q(2)}), queues{});
    unlock("c1", {q(1)});
    CHECK_EQ(lock("c2", {q(1), q(2)}), (queues{q(1)}));
    unlock("c1", {q(1), q(2)}); // q1 is c2's now: stays; q2 is released
    CHECK_EQ(lock("c1", {q(1), q(2)}), (queues{q(2)}));
    CHECK(dump()["locks"].size() == 2u);
  }
}
