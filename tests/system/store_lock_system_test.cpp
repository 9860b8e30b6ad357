// One process per store, with real broker processes during sends: the
// same start command run again, and a second broker (another name and
// port) on the same store dir, each exit 1 at once saying why, while the
// first keeps serving; afterwards every acknowledged message is there
// once and verifyStore finds the store clean.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicLocked";
constexpr int32_t queues = 4;

// Runs `argv` to its exit while sending to `front` between polls, so that
// the intruder starts and gives up while the broker is busy storing; keeps
// every acknowledged body in `acked`. Answers the exit code and output.
admin_run run_while_sending(remote_client& client, const broker_actor& front,
                            std::vector<std::string> argv,
                            std::vector<std::string>& acked) {
  child_process intruder{std::move(argv)};
  admin_run result;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  int sent = 0;
  while (result.rc < 0 && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 20; ++i) {
      auto body = "m" + std::to_string(acked.size()) + "-"
                  + std::to_string(sent++);
      auto res = send_plain(client, front, topic, body);
      REQUIRE_MESSAGE(res, describe(res.error()));
      REQUIRE_EQ(res->status, static_cast<uint8_t>(send_status::send_ok));
      acked.push_back(body);
    }
    result.rc = intruder.wait(1ms);
  }
  std::string line;
  while (intruder.read_line(line, 1s))
    result.out += line + "\n";
  MESSAGE("intruder said: " << result.out);
  return result;
}

} // namespace

TEST_SUITE("system.store_lock") {
  TEST_CASE("a second start on a live store exits 1 at once and the first "
            "keeps every acknowledged message") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, topic, queues);
    std::vector<std::string> acked;

    // The same command again (a supervisor restarting a live broker): its
    // port is taken, and it says so before it opens the store.
    auto twice = how;
    twice.log_to_stdout = true;
    auto same = run_while_sending(client, front,
                                  broker_argv(twice, broker.port), acked);
    CHECK_EQ(same.rc, 1);
    CHECK_NE(same.out.find("cannot listen on 127.0.0.1:"
                           + std::to_string(broker.port)),
             std::string::npos);

    // Another broker on the same store: refused by the store's lock,
    // naming the folder and the live broker's pid.
    auto other = how;
    other.name = "broker-b";
    other.log_to_stdout = true;
    auto second = run_while_sending(client, front,
                                    broker_argv(other, unused_port()), acked);
    CHECK_EQ(second.rc, 1);
    CHECK_NE(second.out.find("store " + how.store_dir
                             + " is in use by another process (pid "
                             + std::to_string(broker.proc->pid()) + ")"),
             std::string::npos);

    // The first still serves, and stops cleanly.
    auto last = send_plain(client, front, topic, "after");
    REQUIRE(last);
    CHECK_EQ(last->status, static_cast<uint8_t>(send_status::send_ok));
    acked.push_back("after");
    broker.proc->signal(SIGTERM);
    CHECK_EQ(broker.proc->wait(), 0);

    auto verified = run_admin({"verifyStore", "-d", how.store_dir});
    CHECK_EQ(verified.rc, 0);
    CHECK_NE(verified.out.find("store OK"), std::string::npos);
    CHECK_NE(verified.out.find("records " + std::to_string(acked.size()) + ","),
             std::string::npos);

    // Every acknowledged message is there once.
    restart_broker_node(broker, how);
    remote_client again;
    auto front2 = connect_broker(again, broker.port);
    std::vector<std::string> stored;
    for (int32_t q = 0; q < queues; ++q) {
      auto bodies = pull_all(again, front2, topic, q);
      stored.insert(stored.end(), bodies.begin(), bodies.end());
    }
    std::sort(stored.begin(), stored.end());
    std::sort(acked.begin(), acked.end());
    CHECK_EQ(stored.size(), acked.size());
    CHECK(stored == acked);
    MESSAGE("acknowledged during the two starts: " << acked.size());
  }
}
