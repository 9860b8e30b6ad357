// Damage a stopped store the way a bad disk would, check that verify_store
// names it, then reopen: every acknowledged record the damage did not touch
// must read back, and a read of a damaged one answers corrupt_data.
#include "runtime/storage/store_verifier.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <doctest/doctest.h>

#include "runtime/message/byte_coding.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

constexpr size_t seg_size = 8192;

std::string to_string(const std::vector<int64_t>& xs) {
  std::string out;
  for (auto x : xs)
    out += std::to_string(x) + " ";
  return out;
}

struct fixture {
  test::temp_dir dir;
  store_config cfg = make_config();
  std::vector<put_result> acked;

  store_config make_config() {
    auto c = test::small_config(dir.path());
    c.segment_size = seg_size;
    return c;
  }

  // Writes n acknowledged (flushed) messages "m<i>" of ~300 bytes each:
  // about 20 records per segment.
  void write(int n, bool clean) {
    auto st = test::open_store(cfg);
    for (int i = 0; i < n; ++i) {
      auto res = st->put(test::make_message("T", 0, body(i)), 1000 + i, 0);
      REQUIRE_FALSE(res.error);
      acked.push_back(res);
    }
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    if (clean)
      REQUIRE_FALSE(st->close());
  }

  static std::string body(int i) {
    auto prefix = "m" + std::to_string(i) + ";";
    return prefix + std::string(300 - prefix.size(), 'x');
  }

  std::string segment_of(int i) const {
    auto base = acked[i].phys_offset / static_cast<int64_t>(seg_size)
                * static_cast<int64_t>(seg_size);
    return test::segment_path(dir.path(), base);
  }

  size_t pos_in_segment(int i, size_t at) const {
    return static_cast<size_t>(acked[i].phys_offset
                               % static_cast<int64_t>(seg_size))
           + at;
  }

  // Flips the byte `at` bytes into record i.
  void damage(int i, size_t at) {
    test::flip_byte(segment_of(i), pos_in_segment(i, at));
  }

  store_report verify() {
    auto rep = verify_store(dir.path());
    REQUIRE_MESSAGE(rep, describe(rep.error()));
    MESSAGE(format_report(*rep));
    return *rep;
  }

  // The problems of `rep` at commit-log or queue offset `offset`.
  static size_t problems_at(const store_report& rep, int64_t offset) {
    return static_cast<size_t>(
      std::count_if(rep.problems.begin(), rep.problems.end(),
                    [&](auto& p) { return p.offset == offset; }));
  }

  // Every acknowledged record except `damaged` reads back, and a read of
  // each damaged one answers corrupt_data.
  void check_reads(message_store& st, const std::set<int>& damaged) {
    auto got = test::read_skipping(st);
    std::vector<std::string> expected;
    for (int i = 0; i < static_cast<int>(acked.size()); ++i)
      if (damaged.count(i) == 0)
        expected.push_back(body(i));
    std::vector<std::string> intact;
    for (auto& b : got.bodies)
      if (std::find(expected.begin(), expected.end(), b) != expected.end())
        intact.push_back(b);
    CHECK_EQ(intact, expected);
    std::vector<int64_t> corrupt(damaged.begin(), damaged.end());
    CHECK_EQ(to_string(got.corrupt), to_string(corrupt));
  }
};

} // namespace

TEST_SUITE("runtime.store_corruption") {
  TEST_CASE_FIXTURE(fixture, "a clean store verifies OK") {
    write(50, true);
    auto rep = verify();
    CHECK(rep.ok());
    CHECK_EQ(rep.records, 50);
    CHECK_EQ(rep.units, 50);
    CHECK_EQ(rep.queues, 1u);
    CHECK_EQ(rep.log_end, acked.back().phys_offset + acked.back().size);
    CHECK_FALSE(rep.crashed);
  }

  TEST_CASE_FIXTURE(fixture, "a flipped byte in an old segment is named and "
                             "never served") {
    write(100, true);
    REQUIRE_GT(acked.back().phys_offset, static_cast<int64_t>(3 * seg_size));
    int victim = 25; // second segment, below the recovery scan
    REQUIRE_EQ(segment_of(victim), test::segment_path(dir.path(), seg_size));
    damage(victim, 150); // body
    auto rep = verify();
    CHECK_FALSE(rep.ok());
    CHECK_EQ(problems_at(rep, acked[victim].phys_offset), 1u); // the range
    CHECK_EQ(problems_at(rep, victim), 1u);                    // its unit
    auto st = test::open_store(cfg);
    CHECK_EQ(st->log().segment_count(),
             static_cast<size_t>(acked.back().phys_offset / seg_size + 1));
    check_reads(*st, {victim});
    CHECK_EQ(test::read_skipping(*st).corrupt, std::vector<int64_t>{victim});
    auto one = st->lookup(acked[victim].phys_offset);
    REQUIRE_FALSE(one);
    CHECK_EQ(one.error(), errc::corrupt_data);
    CHECK_NE(error_detail(one.error()).find("body CRC mismatch"),
             std::string::npos);
    CHECK(st->lookup(acked[victim + 1].phys_offset));
    CHECK_GT(st->corrupt_reads(), 0);
    // A pull hands the stored bytes on; the consumer side's decode refuses
    // the corrupt body, naming its queue offset.
    get_message_request req{"T", 0, victim - 1, 3, 1 << 20, {}};
    auto pulled = st->get_messages(req);
    REQUIRE(pulled);
    auto decoded = decode_pulled(*pulled);
    REQUIRE_FALSE(decoded);
    CHECK_EQ(decoded.error(), errc::corrupt_data);
    CHECK_NE(error_detail(decoded.error())
               .find("queue offset 25: corrupt "
                     "record at offset "
                     + std::to_string(acked[victim].phys_offset)
                     + ": body CRC mismatch"),
             std::string::npos);
    req.offset = victim + 1;
    auto after = decode_pulled(*st->get_messages(req));
    REQUIRE(after);
    CHECK_EQ(after->size(), 3u);
  }

  TEST_CASE_FIXTURE(fixture, "a flipped byte in the last segment away from "
                             "the tail is skipped and kept") {
    write(100, false); // crash
    auto last_base = acked.back().phys_offset / static_cast<int64_t>(seg_size)
                     * static_cast<int64_t>(seg_size);
    int victim = 0;
    while (acked[victim].phys_offset < last_base)
      ++victim;
    REQUIRE_LT(victim + 3, 100);
    damage(victim, 5); // magic: the header no longer decodes
    auto rep = verify();
    CHECK_FALSE(rep.ok());
    CHECK(rep.crashed);
    REQUIRE_GE(problems_at(rep, acked[victim].phys_offset), 1u);
    CHECK_EQ(rep.log_end, acked.back().phys_offset + acked.back().size);
    {
      auto st = test::open_store(cfg);
      REQUIRE_EQ(st->recovery().corruptions.size(), 1u);
      auto& bad = st->recovery().corruptions[0];
      CHECK_EQ(bad.offset, acked[victim].phys_offset);
      CHECK_EQ(bad.length, acked[victim].size);
      CHECK_EQ(bad.segment, last_base);
      CHECK_EQ(st->write_offset(),
               acked.back().phys_offset + acked.back().size);
      check_reads(*st, {victim});
      // Writes continue after the last record, queue offsets after the last.
      auto next = st->put(test::make_message("T", 0, body(100)), 5000, 0);
      REQUIRE_FALSE(next.error);
      CHECK_EQ(next.queue_offset, 100);
      acked.push_back(next);
      REQUIRE(st->flush(st->write_offset()));
      REQUIRE_FALSE(st->dispatch(st->write_offset()));
      REQUIRE_FALSE(st->close());
    }
    auto st = test::open_store(cfg);
    check_reads(*st, {victim});
  }

  TEST_CASE_FIXTURE(fixture, "a damaged checkpoint falls back to a full scan "
                             "that keeps every intact segment") {
    write(100, false); // crash
    auto segments
      = static_cast<size_t>(acked.back().phys_offset / seg_size + 1);
    test::flip_byte(dir.path() + "/checkpoint", 40);
    int victim = 10;   // first segment
    damage(victim, 1); // total size: the length itself is garbage
    auto rep = verify();
    CHECK_FALSE(rep.ok());
    CHECK_EQ(problems_at(rep, acked[victim].phys_offset), 1u);
    CHECK(std::any_of(rep.problems.begin(), rep.problems.end(),
                      [](auto& p) { return p.file == "checkpoint"; }));
    auto st = test::open_store(cfg);
    CHECK(st->recovery().checkpoint_damaged);
    CHECK_EQ(st->recovery().scan_from, 0);
    CHECK_EQ(st->recovery().dropped_segments, 0u);
    CHECK_EQ(st->log().segment_count(), segments);
    REQUIRE_EQ(st->recovery().corruptions.size(), 1u);
    CHECK_EQ(st->recovery().corruptions[0].offset, acked[victim].phys_offset);
    CHECK_EQ(st->recovery().records, 99);
    check_reads(*st, {victim});
  }

  TEST_CASE_FIXTURE(fixture, "a torn tail is cut and only the tail") {
    write(30, false); // crash
    auto end = acked.back().phys_offset + acked.back().size;
    {
      // A record the crash left half written: magic and some fields, but
      // the total size (written last) still zero.
      std::fstream f{test::segment_path(dir.path(), end / seg_size * seg_size),
                     std::ios::in | std::ios::out | std::ios::binary};
      char part[60] = {};
      put_be32(part + 4, message_magic_v1);
      put_be64(part + 28, static_cast<uint64_t>(end));
      f.seekp(end % static_cast<int64_t>(seg_size));
      f.write(part, sizeof(part));
    }
    auto rep = verify();
    CHECK_FALSE(rep.ok());
    REQUIRE_EQ(rep.problems.size(), 1u);
    CHECK_EQ(rep.problems[0].offset, end);
    CHECK_NE(rep.problems[0].what.find("torn tail"), std::string::npos);
    {
      auto st = test::open_store(cfg);
      CHECK_EQ(st->recovery().torn_tail_offset, end);
      CHECK(st->recovery().corruptions.empty());
      CHECK_EQ(st->write_offset(), end);
      check_reads(*st, {});
      REQUIRE_FALSE(st->close());
    }
    CHECK(verify().ok()); // the cut left a clean store
  }

  TEST_CASE_FIXTURE(fixture, "random flipped bytes never lose an untouched "
                             "record") {
    std::mt19937 rng{test::test_seed()}; // RMQ_TEST_SEED repeats a run
    bool clean = rng() % 2 == 0;
    write(120, clean);
    // Bytes recovery is built to judge: length, magic, body CRC, phys
    // offset and body; after a crash (every record re-dispatched) also the
    // queue offset. (Other header fields are not covered by the body CRC:
    // see docs/storage.md, known gaps.)
    std::vector<std::pair<size_t, size_t>> spots{{0, 12}, {28, 36}, {95, 300}};
    if (!clean)
      spots.emplace_back(20, 28);
    std::set<int> damaged;
    while (damaged.size() < 4) {
      // Never the last record: damage there is a torn tail, legitimately cut.
      // Never the first: a queue rebuilt from nothing starts at its first
      // valid record.
      auto i = 1 + static_cast<int>(rng() % 118);
      if (damaged.count(i) > 0)
        continue; // a second flip of the same byte would undo the first
      auto& spot = spots[rng() % spots.size()];
      auto at = spot.first + rng() % (spot.second - spot.first);
      damage(i, at);
      damaged.insert(i);
    }
    auto rep = verify();
    CHECK_FALSE(rep.ok());
    for (auto i : damaged)
      CHECK_GE(problems_at(rep, acked[i].phys_offset) + problems_at(rep, i),
               1u);
    for (int round = 0; round < 2; ++round) {
      auto st = test::open_store(cfg);
      CHECK_EQ(st->write_offset(),
               acked.back().phys_offset + acked.back().size);
      check_reads(*st, damaged);
      if (round == 0)
        st.reset(); // crash again: recovery must agree with itself
    }
  }

  TEST_CASE_FIXTURE(fixture, "a missing segment file keeps every later "
                             "segment") {
    bool clean = false;
    SUBCASE("after a clean shutdown") {
      clean = true;
    }
    SUBCASE("after a crash") {
      clean = false;
    }
    write(100, clean);
    auto segments = acked.back().phys_offset / static_cast<int64_t>(seg_size)
                    + 1;
    REQUIRE_GE(segments, 4);
    std::filesystem::remove(test::segment_path(dir.path(), 2 * seg_size));
    std::set<int> lost;
    for (int i = 0; i < 100; ++i)
      if (acked[i].phys_offset / static_cast<int64_t>(seg_size) == 2)
        lost.insert(i);
    auto rep = verify();
    CHECK_FALSE(rep.ok());
    CHECK_EQ(problems_at(rep, 2 * seg_size), 1u);
    auto st = test::open_store(cfg);
    CHECK_EQ(st->log().segment_count(), static_cast<size_t>(segments - 1));
    REQUIRE_GE(st->recovery().corruptions.size(), 1u);
    CHECK_EQ(st->recovery().corruptions[0].offset, 2 * seg_size);
    CHECK_EQ(st->recovery().corruptions[0].reason, "segment file missing");
    CHECK_EQ(st->write_offset(), acked.back().phys_offset + acked.back().size);
    check_reads(*st, lost);
  }

  TEST_CASE("verify_store refuses a folder that is no store") {
    test::temp_dir dir;
    auto rep = verify_store(dir.path() + "/none");
    REQUIRE_FALSE(rep);
    CHECK_EQ(rep.error(), errc::invalid_parameter);
  }

} // TEST_SUITE
