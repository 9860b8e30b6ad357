// The timer's wheel and log: entries read back per slot in queue order,
// reopening after a clean close (the wheel is trusted) and after a crash
// (the wheel is rebuilt, the unsynced tail cut), segments removed once
// fired, and the limits.
#include "runtime/storage/timer_store.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/storage/mapped_file.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

constexpr int64_t t0 = 1'700'000'000'000;

timer_store_config config(const std::string& dir) {
  timer_store_config cfg;
  cfg.dir = dir + "/timer";
  cfg.wheel_slots = 2 * 86'400;
  cfg.log_segment_entries = 4096;
  return cfg;
}

std::unique_ptr<timer_store> open(const timer_store_config& cfg,
                                  int64_t start = t0) {
  auto ts = timer_store::open(cfg, start);
  REQUIRE(ts);
  return std::move(*ts);
}

timer_entry entry(int64_t slot, int64_t qoff) {
  return {slot, qoff * 100, 100, qoff};
}

/// Fires every slot up to `until` (exclusive), collecting queue offsets
/// per slot and checking that each slot's entries come in queue order.
std::map<int64_t, std::vector<int64_t>> fire(timer_store& ts, int64_t until) {
  std::map<int64_t, std::vector<int64_t>> out;
  while (ts.read_ms() < until) {
    auto due = ts.due();
    REQUIRE(due);
    if (!due->empty()) {
      auto& qs = out[ts.read_ms()];
      for (auto& e : *due) {
        REQUIRE_EQ(e.slot_ms, ts.read_ms());
        qs.push_back(e.queue_offset);
      }
      CHECK(std::is_sorted(qs.begin(), qs.end()));
    }
    REQUIRE_FALSE(ts.advance());
  }
  return out;
}

} // namespace

TEST_SUITE("runtime.timer_store") {
  TEST_CASE("100,000 entries over a day come back per slot") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    auto ts = open(cfg);
    std::mt19937 rng{test::test_seed()};
    std::uniform_int_distribution<int64_t> sec{0, 86'399};
    std::map<int64_t, std::vector<int64_t>> expect;
    for (int64_t q = 0; q < 100'000; ++q) {
      auto slot = t0 + sec(rng) * 1000;
      REQUIRE_FALSE(ts->add(entry(slot, q)));
      expect[slot].push_back(q);
    }
    CHECK_EQ(ts->pending(), 100'000);
    CHECK_EQ(ts->enqueue_offset(), 100'000);
    CHECK_EQ(ts->next_due_ms(), expect.begin()->first);
    auto got = fire(*ts, t0 + 86'400'000);
    CHECK(got == expect);
    CHECK_EQ(ts->pending(), 0);
    CHECK_EQ(ts->next_due_ms(), -1);
    // Every segment but the one being written is fired and gone.
    CHECK_EQ(ts->stats().log_segments, 1);
    REQUIRE_FALSE(ts->close());
  }

  TEST_CASE("reopened after a close: the same pending entries") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    {
      auto ts = open(cfg);
      for (int64_t q = 0; q < 1000; ++q)
        REQUIRE_FALSE(ts->add(entry(t0 + (q % 100) * 1000, q)));
      fire(*ts, t0 + 10'000);
      REQUIRE_FALSE(ts->close());
    }
    auto ts = open(cfg, t0 + 50'000'000);
    CHECK_FALSE(ts->stats().rebuilt);
    // The read time is the checkpoint's, not the start time.
    CHECK_EQ(ts->read_ms(), t0 + 10'000);
    CHECK_EQ(ts->pending(), 900);
    CHECK_EQ(ts->enqueue_offset(), 1000);
    CHECK_EQ(ts->next_due_ms(), t0 + 10'000);
    auto got = fire(*ts, t0 + 100'000);
    for (int64_t s = 10; s < 100; ++s) {
      auto& qs = got[t0 + s * 1000];
      REQUIRE_EQ(qs.size(), 10u);
      for (size_t k = 0; k < 10; ++k)
        CHECK_EQ(qs[k], s + static_cast<int64_t>(k) * 100);
    }
    CHECK_EQ(ts->pending(), 0);
  }

  TEST_CASE("after a crash: the wheel is rebuilt from the log, the tail "
            "past the checkpoint is cut") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    {
      auto ts = open(cfg);
      for (int64_t q = 0; q < 5000; ++q)
        REQUIRE_FALSE(ts->add(entry(t0 + (q % 50) * 1000, q)));
      fire(*ts, t0 + 5000);
      REQUIRE_FALSE(ts->flush());
      // Not flushed: lost in the crash.
      for (int64_t q = 5000; q < 5100; ++q)
        REQUIRE_FALSE(ts->add(entry(t0 + 60'000, q)));
      fire(*ts, t0 + 7000);
      // Dropped without close: a crash. Tear the tail.
    }
    auto seg = cfg.dir + "/timerlog/" + offset_file_name(4096);
    {
      std::fstream f{seg, std::ios::in | std::ios::out | std::ios::binary};
      REQUIRE(f.good());
      f.seekp((5000 - 4096) * 40 + 13);
      f.write("garbage!", 8);
    }
    auto ts = open(cfg);
    CHECK(ts->stats().rebuilt);
    CHECK_EQ(ts->read_ms(), t0 + 5000);
    CHECK_EQ(ts->enqueue_offset(), 5000);
    CHECK_EQ(ts->pending(), 4500);
    CHECK_EQ(ts->stats().log_entries, 5000);
    // The queue supplies the lost ones again.
    for (int64_t q = 5000; q < 5100; ++q)
      REQUIRE_FALSE(ts->add(entry(t0 + 60'000, q)));
    auto got = fire(*ts, t0 + 61'000);
    for (int64_t s = 5; s < 50; ++s)
      CHECK_EQ(got[t0 + s * 1000].size(), 100u);
    CHECK_EQ(got[t0 + 60'000].size(), 100u);
    CHECK_EQ(got[t0 + 60'000].front(), 5000);
    CHECK_EQ(ts->pending(), 0);
  }

  TEST_CASE("a damaged entry within the durable log cuts the log there") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    {
      auto ts = open(cfg);
      for (int64_t q = 0; q < 100; ++q)
        REQUIRE_FALSE(ts->add(entry(t0 + 1000, q)));
      REQUIRE_FALSE(ts->flush());
    }
    {
      std::fstream f{cfg.dir + "/timerlog/" + offset_file_name(0),
                     std::ios::in | std::ios::out | std::ios::binary};
      f.seekp(60 * 40 + 20);
      f.write("xx", 2);
    }
    auto ts = open(cfg);
    CHECK_EQ(ts->stats().log_entries, 60);
    CHECK_EQ(ts->pending(), 60);
    auto due = fire(*ts, t0 + 2000);
    CHECK_EQ(due[t0 + 1000].size(), 60u);
  }

  TEST_CASE("overdue entries fire next; a whole wheel ahead must wait") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    cfg.wheel_slots = 100;
    auto ts = open(cfg);
    fire(*ts, t0 + 10'000);
    REQUIRE_FALSE(ts->add(entry(t0 - 5000, 0)));
    CHECK_EQ(ts->next_due_ms(), t0 + 10'000);
    auto err = ts->add(entry(t0 + 110'000, 1));
    CHECK_EQ(err, errc::system_busy);
    CHECK_EQ(ts->enqueue_offset(), 1);
    REQUIRE_FALSE(ts->add(entry(t0 + 109'000, 1)));
    CHECK_EQ(ts->add(entry(t0, 0)), errc::invalid_parameter);
    ts->skip(2);
    CHECK_EQ(ts->enqueue_offset(), 3);
    auto got = fire(*ts, t0 + 110'000);
    CHECK(got[t0 + 10'000] == std::vector<int64_t>{0});
    CHECK(got[t0 + 109'000] == std::vector<int64_t>{1});
  }

  TEST_CASE("a wheel of another size is refused") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    REQUIRE_FALSE(open(cfg)->close());
    cfg.wheel_slots = 1000;
    auto ts = timer_store::open(cfg, t0);
    REQUIRE_FALSE(ts);
    CHECK_EQ(ts.error(), errc::invalid_parameter);
  }

  TEST_CASE("a damaged checkpoint is kept aside and the timer starts anew, "
            "to be refilled from the timer topic") {
    test::temp_dir dir;
    auto cfg = config(dir.path());
    {
      auto ts = open(cfg);
      for (int64_t q = 0; q < 10; ++q)
        REQUIRE_FALSE(ts->add(entry(t0 + 5000, q)));
      REQUIRE_FALSE(ts->close());
    }
    auto path = cfg.dir + "/timercheck.json";
    REQUIRE(std::filesystem::exists(path));
    auto text = test::read_file(path);
    test::write_file(path, text.substr(0, text.size() / 2));
    auto ts = open(cfg, t0 + 1000);
    // Nothing of the old log is trusted: the timer service enqueues the
    // timer topic again from its first message.
    CHECK_EQ(ts->enqueue_offset(), 0);
    CHECK_EQ(ts->pending(), 0);
    CHECK(std::filesystem::exists(path + ".corrupt.1"));
  }
}
