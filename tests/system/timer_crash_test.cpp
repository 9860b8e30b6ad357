// Timed messages across a SIGTERM and a SIGKILL: a producer in the test
// process sends 1,000 messages with delays of 1 to 20 s to a sync-flush
// broker process (rmq-node); the broker is stopped with SIGTERM while the
// timers fire, restarted on the same store dir, later SIGKILLed and
// restarted again. In the end every timed message is in its real
// topic exactly once, none stored before its deliver time.
#include <chrono>
#include <csignal>
#include <map>
#include <random>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "actors/client/producer/producer.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/timer_message.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_seed.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"
#include "tests/system/timed_sends.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

constexpr char topic[] = "TimerTopic";
constexpr int32_t queues = 4;
constexpr int total = 1000;

} // namespace

TEST_SUITE("system.timer_crash") {
  TEST_CASE("timed messages survive a SIGTERM and a SIGKILL: each delivered "
            "once, none early") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    how.flush = "SYNC_FLUSH";
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, topic, queues);
    REQUIRE(wait_until(
      [&] { return !route_brokers(client, ns.port, topic).empty(); }, 10s));
    producer_config pcfg;
    pcfg.group = "PG_TIMER_SYSTEM";
    pcfg.client.namesrv = ns.addr();
    pcfg.client.client_ip = "127.0.0.1";
    auto p = spawn_producer(client.sys, pcfg);
    REQUIRE_MESSAGE(p, describe(p.error()));
    std::mt19937 rng{test_seed()};
    // Body -> the earliest time it may be stored.
    auto not_before = send_timed(*p, topic, total, 1000, 20'000, rng);
    CHECK_EQ(stored_count(client, front, topic, queues) < total, true);
    // SIGTERM while the timers fire: a clean close of the wheel.
    REQUIRE(wait_until(
      [&] { return stored_count(client, front, topic, queues) >= total / 4; },
      30s, 50ms));
    broker.proc->signal(SIGTERM);
    CHECK_EQ(broker.proc->wait(), 0);
    restart_broker_node(broker, how);
    front = connect_broker(client, broker.port);
    // Then SIGKILL: the wheel is rebuilt from the timer log.
    REQUIRE(wait_until(
      [&] { return stored_count(client, front, topic, queues) >= total / 2; },
      30s, 50ms));
    broker.proc->signal(SIGKILL);
    CHECK_EQ(broker.proc->wait(), 128 + SIGKILL);
    restart_broker_node(broker, how);
    front = connect_broker(client, broker.port);
    REQUIRE(wait_until(
      [&] { return stored_count(client, front, topic, queues) >= total; }, 60s,
      100ms));
    // Nothing is left in the wheel, so nothing more can come.
    REQUIRE(wait_until(
      [&] { return broker_status(client, front, "timerCongestNum") == "0"; },
      30s, 100ms));
    CHECK_EQ(stored_count(client, front, topic, queues), total);
    std::set<std::string> seen;
    for (auto& rec : pull_records(client, front, topic, queues)) {
      CHECK_MESSAGE(seen.insert(rec.body).second, rec.body << " twice");
      auto i = not_before.find(rec.body);
      REQUIRE(i != not_before.end());
      CHECK_GE(rec.store_timestamp, i->second);
      auto slot = find_property(rec.properties, property_timer_out_ms);
      CHECK_GE(rec.store_timestamp, std::stoll(std::string{slot}));
    }
    CHECK_EQ(seen.size(), static_cast<size_t>(total));
    MESSAGE("timerDelivered after the restart: "
            << broker_status(client, front, "timerDelivered"));
  }
}
