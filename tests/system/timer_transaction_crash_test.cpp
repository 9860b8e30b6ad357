// Timed and transactional messages together through the real client APIs
// and one SIGKILL: a producer and a transaction producer in the test
// process send 1,000 timed messages (delays 1 to 15 s) and 1,000
// transactional ones to a sync-flush broker process (rmq-node). A quarter
// of the transactions commit in the listener, a quarter roll back there,
// and half stay unknown until the broker checks them back; those checks
// are answered "unknown" until the broker has been killed and restarted,
// so they are resolved only by check-backs of the restarted broker. In
// the end the real topics hold every timed message and exactly the
// committed transactions, each once, and no timed message was stored
// before its time.
#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "actors/client/producer/producer.hpp"
#include "actors/client/producer/transaction_producer.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
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

constexpr char timer_topic[] = "MixTimerTopic";
constexpr char txn_topic[] = "MixTxnTopic";
constexpr int32_t queues = 4;
constexpr int total = 1000;

/// Transaction n: 0 commits and 1 rolls back in the listener's execute;
/// 2 (commit) and 3 (rollback) are unknown there and end by check-back.
int kind_of(int n) {
  return n % 4;
}

bool commits(int n) {
  return kind_of(n) == 0 || kind_of(n) == 2;
}

std::string txn_body(int n) {
  return "txn-" + std::to_string(n);
}

int txn_number(const std::string& body) {
  return std::stoi(body.substr(4));
}

class mixed_listener : public transaction_listener {
public:
  transaction_state execute_local_transaction(const client_message& msg,
                                              const std::string&) override {
    switch (kind_of(txn_number(msg.body))) {
      case 0:
        return transaction_state::commit;
      case 1:
        return transaction_state::rollback;
      default:
        return transaction_state::unknown;
    }
  }

  transaction_state
  check_local_transaction(const received_message& msg) override {
    auto n = txn_number(msg.body);
    {
      std::lock_guard<std::mutex> guard{mtx};
      checked.insert(n);
    }
    ++checks;
    if (!decide)
      return transaction_state::unknown;
    return commits(n) ? transaction_state::commit : transaction_state::rollback;
  }

  /// Answer the checks with the outcome (after the restart).
  std::atomic<bool> decide{false};
  std::atomic<int> checks{0};
  std::mutex mtx;
  /// The transactions checked at least once.
  std::set<int> checked;

  size_t checked_count() {
    std::lock_guard<std::mutex> guard{mtx};
    return checked.size();
  }
};

} // namespace

TEST_SUITE("system.timer_transaction_crash") {
  TEST_CASE("1,000 timed and 1,000 transactional messages across a SIGKILL: "
            "the committed and all timed ones delivered, each once, none "
            "early") {
    // Each check-back and local transaction is logged (as RocketMQ does):
    // 2,000 lines that tell nothing here.
    struct quiet {
      quiet() {
        log::set_level(log::level::error);
      }
      ~quiet() {
        log::set_level(log::level::info);
      }
    } quiet_log;
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    how.flush = "SYNC_FLUSH";
    // Check rounds every 500 ms, a half is checked 300 ms after it was
    // stored; 100 checks at most so that none is discarded while the
    // checks are answered "unknown" (about 10 s here).
    how.extra.insert(how.extra.end(), {"--transaction-check-interval-ms=500",
                                       "--transaction-timeout-ms=300",
                                       "--transaction-check-max=100"});
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, timer_topic, queues);
    create_topic(client, front, txn_topic, queues);
    REQUIRE(wait_until(
      [&] {
        return !route_brokers(client, ns.port, timer_topic).empty()
               && !route_brokers(client, ns.port, txn_topic).empty();
      },
      10s));
    // One client instance for both producers; heartbeats every second so
    // that the restarted broker knows the group's channel at once.
    producer_config pcfg;
    pcfg.group = "PG_MIX_TIMER";
    pcfg.client.namesrv = ns.addr();
    pcfg.client.client_ip = "127.0.0.1";
    pcfg.client.heartbeat_interval = 1s;
    pcfg.client.poll_namesrv_interval = 1s;
    auto p = spawn_producer(client.sys, pcfg);
    REQUIRE_MESSAGE(p, describe(p.error()));
    transaction_producer_config tcfg;
    tcfg.producer = pcfg;
    tcfg.producer.group = "PG_MIX_TXN";
    auto listener = std::make_shared<mixed_listener>();
    auto tp = spawn_transaction_producer(client.sys, tcfg, listener);
    REQUIRE_MESSAGE(tp, describe(tp.error()));

    std::mt19937 rng{test_seed()};
    // Timed body -> the earliest time it may be stored; sent before the
    // transactions, whose check-backs then run while the timers fire.
    auto not_before = send_timed(*p, timer_topic, total, 1000, 15'000, rng);
    std::multiset<std::string> committed;
    for (int i = 0; i < total; ++i) {
      client_message txn;
      txn.topic = txn_topic;
      txn.body = txn_body(i);
      auto tres = tp->send_in_transaction(txn);
      REQUIRE_MESSAGE(tres, describe(tres.error()));
      CHECK_EQ(tres->end_error, "");
      if (commits(i))
        committed.insert(txn.body);
    }
    // Every unknown transaction was checked back at least once (and
    // answered "unknown"); the others ended by themselves; some timers
    // fired.
    CHECK(wait_until([&] { return listener->checked_count() >= total / 2; },
                     30s, 20ms));
    CHECK(wait_until(
      [&] {
        return broker_status(client, front, "transactionHalfPending")
               == std::to_string(total / 2);
      },
      10s, 20ms));
    REQUIRE(wait_until(
      [&] {
        return stored_count(client, front, timer_topic, queues) >= total / 4;
      },
      30s, 50ms));
    // rmq-admin shows the pending timers, the half messages pending per
    // producer group and the dumps of the new actors.
    auto admin
      = run_admin({"-n", ns.addr(), "brokerStatus", "-b", broker.addr()});
    CHECK_EQ(admin.rc, 0);
    CHECK_EQ(admin_status_value(admin.out, "transactionHalfPending_PG_MIX_TXN"),
             std::to_string(total / 2));
    CHECK_NE(admin_status_value(admin.out, "timerCongestNum"), "");
    CHECK_NE(admin_status_value(admin.out, "timerCongestNum"), "0");
    CHECK_NE(admin_status_value(admin.out, "timerNextDueMs"), "");
    CHECK_NE(admin_status_value(admin.out, "timerDequeueLagMs"), "");
    admin = run_admin({"-n", ns.addr(), "dump", "-b", broker.addr()});
    CHECK_EQ(admin.rc, 0);
    auto dump = nlohmann::json::parse(admin.out, nullptr, false);
    auto checks = find_actor(dump, "transaction_check_service");
    REQUIRE(checks != nullptr);
    CHECK_EQ((*checks)["pending"], total / 2);
    auto timers = find_actor(dump, "timer_service");
    REQUIRE(timers != nullptr);
    CHECK_GT((*timers)["enqueued"].get<int64_t>(), 0);
    CHECK(find_actor(dump, "end_transaction_processor") != nullptr);
    auto timed_before = stored_count(client, front, timer_topic, queues);
    CHECK_LT(timed_before, total);
    CHECK_EQ(stored_count(client, front, txn_topic, queues), total / 4);
    broker.proc->signal(SIGKILL);
    CHECK_EQ(broker.proc->wait(), 128 + SIGKILL);
    MESSAGE("killed with " << timed_before << " timed messages delivered, "
                           << listener->checks.load() << " checks answered");
    listener->decide = true;
    restart_broker_node(broker, how);
    front = connect_broker(client, broker.port);
    CHECK(wait_until(
      [&] {
        return broker_status(client, front, "transactionHalfPending") == "0";
      },
      60s, 100ms));
    REQUIRE(wait_until(
      [&] { return stored_count(client, front, timer_topic, queues) >= total; },
      60s, 100ms));
    REQUIRE(wait_until(
      [&] { return broker_status(client, front, "timerCongestNum") == "0"; },
      30s, 100ms));

    std::set<std::string> timed_seen;
    for (auto& rec : pull_records(client, front, timer_topic, queues)) {
      CHECK_MESSAGE(timed_seen.insert(rec.body).second, rec.body << " twice");
      auto i = not_before.find(rec.body);
      REQUIRE(i != not_before.end());
      CHECK_GE(rec.store_timestamp, i->second);
    }
    CHECK_EQ(timed_seen.size(), static_cast<size_t>(total));
    std::multiset<std::string> got;
    for (auto& rec : pull_records(client, front, txn_topic, queues))
      got.insert(rec.body);
    std::string diff;
    for (auto& x : got)
      if (got.count(x) != committed.count(x))
        diff += " got " + x + " x" + std::to_string(got.count(x));
    for (auto& x : committed)
      if (got.count(x) == 0)
        diff += " missing " + x;
    CHECK_MESSAGE(got == committed, diff);
    CHECK_EQ(got.size(), static_cast<size_t>(total / 2));
    tp->shutdown();
    p->shutdown();
  }
}
