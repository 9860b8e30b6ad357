// Warming the commit log: under sync flush zeros are written ahead of the
// writer and never over a record, also while both run at once; under
// async flush they are also mapped in, and not synced.
#include "runtime/storage/message_store.hpp"

#include <atomic>
#include <random>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

store_config warm_config(const std::string& dir) {
  auto cfg = test::small_config(dir);
  cfg.flush = flush_mode::sync;
  cfg.warm_ahead_bytes = 8 * 1024;
  cfg.warm_chunk_bytes = 4096;
  return cfg;
}

} // namespace

TEST_CASE("warming writes zeros ahead of the writer, within its segment") {
  test::temp_dir dir;
  auto st = test::open_store(warm_config(dir.path()));
  CHECK(st->needs_warm());
  REQUIRE(st->put(test::make_message("T", 0, "a"), 1, 0).phys_offset == 0);
  auto res = st->warm();
  REQUIRE(res);
  CHECK(*res);
  CHECK_EQ(st->log().warm_end(), st->write_offset() + 8 * 1024);
  CHECK_FALSE(st->needs_warm());
  // Nothing more to do until the writer has used half of it.
  CHECK_FALSE(*st->warm());
  // Past the segment's end is never warmed.
  auto cfg = st->config();
  while (st->write_offset() < static_cast<int64_t>(cfg.segment_size) - 4096)
    REQUIRE_FALSE(
      st->put(test::make_message("T", 0, std::string(1000, 'x')), 1, 0).error);
  while (*st->warm())
    ;
  CHECK(st->log().warm_end() <= static_cast<int64_t>(cfg.segment_size));
  REQUIRE_FALSE(st->close());
}

TEST_CASE("under async flush, warming maps zeros in ahead of the writer "
          "and erases no record") {
  test::temp_dir dir;
  auto cfg = warm_config(dir.path());
  cfg.flush = flush_mode::async;
  cfg.segment_size = 1024 * 1024;
  cfg.populate_ahead_bytes = 256 * 1024;
  auto st = test::open_store(cfg);
  REQUIRE_FALSE(st->put(test::make_message("T", 0, "first"), 1, 0).error);
  REQUIRE(st->needs_warm());
  auto res = st->warm();
  REQUIRE(res);
  CHECK(*res);
  CHECK_EQ(st->log().warm_end(), st->write_offset() + 256 * 1024);
  CHECK_FALSE(st->needs_warm());
  CHECK_FALSE(*st->warm());
  // Appends into the populated range take (almost) no page fault: without
  // warming, each of its 64 fresh pages takes one.
  rusage before{};
  getrusage(RUSAGE_THREAD, &before);
  std::string body(1000, 'x');
  int n = 0;
  while (st->write_offset() + 2048 < st->log().warm_end()) {
    REQUIRE_FALSE(st->put(test::make_message("T", 0, body), 2, 0).error);
    ++n;
  }
  rusage after{};
  getrusage(RUSAGE_THREAD, &after);
  MESSAGE("page faults for ", n,
          " appends: ", after.ru_minflt - before.ru_minflt);
  CHECK_GT(n, 200);
  CHECK_LT(after.ru_minflt - before.ru_minflt, 16);
  // The record written before warming is intact, and every record after.
  REQUIRE_FALSE(st->dispatch(st->write_offset()));
  get_message_request req;
  req.topic = "T";
  req.queue_id = 0;
  req.offset = 0;
  req.max_count = 1000;
  req.max_bytes = 4 * 1024 * 1024;
  auto got = st->get_messages(req);
  REQUIRE(got);
  CHECK_EQ(got->phys_offsets.size(), static_cast<size_t>(n + 1));
  REQUIRE_FALSE(st->close());
}

TEST_CASE("warming is off with no bytes to warm ahead") {
  test::temp_dir dir;
  auto cfg = warm_config(dir.path());
  cfg.flush = flush_mode::async;
  cfg.populate_ahead_bytes = 0;
  auto st = test::open_store(cfg);
  st->put(test::make_message("T", 0, "a"), 1, 0);
  CHECK_FALSE(st->needs_warm());
  CHECK_FALSE(*st->warm());
  CHECK_EQ(st->log().warm_end(), 0);
  REQUIRE_FALSE(st->close());
}

TEST_CASE("warming beside the writer never erases a record") {
  std::mt19937 rng{rmq::test::test_seed()};
  test::temp_dir dir;
  auto cfg = warm_config(dir.path());
  SUBCASE("sync flush: zeros written ahead") {
  }
  SUBCASE("async flush: zeros written, mapped in and touched ahead") {
    cfg.flush = flush_mode::async;
    cfg.populate_ahead_bytes = 16 * 1024;
  }
  std::vector<std::string> sent;
  {
    auto st = test::open_store(cfg);
    std::atomic<bool> done{false};
    std::thread warmer{[&] {
      while (!done.load())
        if (auto res = st->warm(); !res)
          break;
    }};
    // Several segments, records of random size: the writer crosses the
    // warm end, rolls and writes blanks while zeros are being written.
    std::uniform_int_distribution<size_t> size{1, 3000};
    for (int i = 0; i < 400; ++i) {
      auto body = std::to_string(i) + ":" + std::string(size(rng), 'b');
      auto res = st->put(test::make_message("T", 0, body), 1, 0);
      REQUIRE_FALSE(res.error);
      sent.push_back(std::move(body));
    }
    done = true;
    warmer.join();
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    CHECK_EQ(test::read_all(*st), sent);
    CHECK(st->log().segment_count() > 3);
    REQUIRE_FALSE(st->close());
  }
  // And recovery (with CRC checks) finds every record where it was.
  auto again = test::open_store(cfg);
  CHECK_EQ(test::read_all(*again), sent);
  CHECK(again->recovery().corruptions.empty());
  REQUIRE_FALSE(again->close());
}

TEST_CASE("populating pages keeps every byte") {
  test::temp_dir dir;
  auto f = mapped_file::open(dir.path() + "/touched", 5 * 4096, 0, nullptr);
  REQUIRE(f);
  auto* data = (*f)->data();
  for (size_t i = 0; i < 5 * 4096; ++i)
    data[i] = static_cast<char>('a' + i % 23);
  // From inside the first page: that page is left alone, the rest touched.
  REQUIRE_FALSE((*f)->populate(100, 5 * 4096));
  for (size_t i = 0; i < 5 * 4096; ++i)
    REQUIRE_EQ(data[i], static_cast<char>('a' + i % 23));
}
