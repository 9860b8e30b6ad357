// The schedule service under SIGKILL: a real process (rmq-bench
// schedule-writer: sync flush, no store dedup, one delay level of 0 s)
// schedules messages while its schedule service delivers them; we kill it
// at random moments, start it again, and finally let it deliver the rest.
// Every scheduled message must be in its real queue exactly once.
// RMQ_SCHEDULE_CRASH_ROUNDS=<n> runs a longer soak.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/storage/message_store.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace std::chrono_literals;

TEST_SUITE("system.schedule_crash") {
  TEST_CASE("each scheduled message is delivered once across SIGKILLs") {
    int rounds = 12;
    if (auto env = std::getenv("RMQ_SCHEDULE_CRASH_ROUNDS"))
      rounds = std::max(1, std::atoi(env));
    test::temp_dir dir;
    std::mt19937 rng{test::test_seed()};
    auto bin = test::bin_dir() + "/rmq-bench";
    auto args = [&](int count) {
      return std::vector<std::string>{bin, "schedule-writer",
                                      "--dir=" + dir.path(),
                                      "--count=" + std::to_string(count)};
    };
    std::string line;
    for (int round = 0; round < rounds; ++round) {
      test::child_process writer{args(1'000'000), false};
      std::string rest;
      REQUIRE(writer.wait_for("READY ", rest, 20s));
      auto run_for = std::chrono::milliseconds{
        std::uniform_int_distribution<int>{20, 250}(rng)};
      auto deadline = std::chrono::steady_clock::now() + run_for;
      while (std::chrono::steady_clock::now() < deadline)
        writer.read_line(line, 10ms);
      writer.signal(SIGKILL);
      CHECK_EQ(writer.wait(5s), 128 + SIGKILL);
    }
    // The last run schedules nothing more and delivers what is left.
    test::child_process drain{args(0), false};
    std::string scheduled_text;
    REQUIRE(drain.wait_for("READY ", scheduled_text, 20s));
    std::string done;
    REQUIRE(drain.wait_for("DONE ", done, 60s));
    CHECK_EQ(drain.wait(10s), 0);
    auto scheduled = std::stoll(scheduled_text);
    REQUIRE_GT(scheduled, 0);
    storage::store_config cfg;
    cfg.dir = dir.path();
    cfg.segment_size = 256 * 1024;
    cfg.max_message_size = 64 * 1024;
    cfg.message_delay_level = "0s";
    auto st = test::open_store(cfg);
    CHECK_EQ(st->offsets(schedule_topic, 0).max_offset, scheduled);
    std::map<int64_t, int> seen;
    auto offs = st->offsets("sched-real", 0);
    int64_t next = 0;
    while (next < offs.max_offset) {
      get_message_request req{"sched-real", 0, next, 1000, 8 << 20, {}};
      auto got = st->get_messages(req);
      REQUIRE_MESSAGE(got, describe(got.error()));
      REQUIRE_EQ(got->status, static_cast<uint8_t>(get_status::found));
      for (auto& body : test::bodies(got->buffer))
        ++seen[body.rfind("seq=", 0) == 0 ? std::stoll(body.substr(4)) : -1];
      next = got->next_begin_offset;
    }
    CHECK_EQ(static_cast<int64_t>(seen.size()), scheduled);
    int64_t twice = 0;
    int64_t unknown = 0;
    for (auto& [seq, n] : seen) {
      unknown += seq < 0 || seq >= scheduled ? 1 : 0;
      twice += n != 1 ? 1 : 0;
    }
    CHECK_EQ(twice, 0);
    CHECK_EQ(unknown, 0);
    CHECK_EQ(offs.max_offset, scheduled);
    MESSAGE("rounds: " << rounds << ", scheduled and delivered: " << scheduled
                       << ", last run (delivered, found delivered): " << done);
  }

} // TEST_SUITE
