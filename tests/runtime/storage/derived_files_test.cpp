// Consume queues and the index are derived from the commit log: damage to
// them (flipped bytes, a unit pointing outside the log, a broken index
// chain) is found at open or on a read, and they are built again from the
// log; no intact record is ever judged damaged because of them, and no
// message is skipped.
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/storage/store_verifier.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

constexpr int per_queue = 60;

struct fixture {
  test::temp_dir dir;
  store_config cfg = test::small_config(dir.path());
  std::vector<std::string> bodies[2];

  static std::string body(int q, int i) {
    return "q" + std::to_string(q) + "-m" + std::to_string(i);
  }

  static std::string key(int q, int i) {
    return "k" + std::to_string(q) + "_" + std::to_string(i);
  }

  // Two queues of `per_queue` messages, interleaved, each with a key.
  void write() {
    auto st = test::open_store(cfg);
    for (int i = 0; i < per_queue; ++i)
      for (int q = 0; q < 2; ++q) {
        auto res
          = st->put(test::make_message("T", q, body(q, i), "tag", key(q, i)),
                    1'700'000'000'000 + i, 0);
        REQUIRE_FALSE(res.error);
        bodies[q].push_back(body(q, i));
      }
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    REQUIRE_FALSE(st->close());
  }

  std::string cq_file(int q) const {
    return dir.path() + "/consumequeue/T/" + std::to_string(q) + "/"
           + offset_file_name(0);
  }

  std::string index_file() const {
    auto files = list_offset_files(dir.path() + "/index");
    REQUIRE_FALSE(files.empty());
    return dir.path() + "/index/" + offset_file_name(files.front());
  }

  // Every message of both queues reads back in order; nothing is damaged.
  void check_all(message_store& st) {
    for (int q = 0; q < 2; ++q)
      CHECK_EQ(test::read_all(st, "T", q), bodies[q]);
    CHECK(st.recovery().corruptions.empty());
  }

  void check_keys(message_store& st) {
    for (int q = 0; q < 2; ++q)
      for (int i = 0; i < per_queue; ++i) {
        query_message_request req;
        req.topic = "T";
        req.key = key(q, i);
        auto res = st.query(req);
        CHECK_MESSAGE(res.phys_offsets.size() == 1u, "key " << req.key);
      }
  }

  static void put_unit(const std::string& file, int64_t queue_offset,
                       int64_t phys, int32_t size) {
    auto text = test::read_file(file);
    put_be64(text.data() + queue_offset * 20, static_cast<uint64_t>(phys));
    put_be32(text.data() + queue_offset * 20 + 8, static_cast<uint32_t>(size));
    test::write_file(file, text);
  }
};

} // namespace

TEST_SUITE("runtime.derived_files") {
  TEST_CASE_FIXTURE(fixture, "random flipped bytes in a consume queue: the "
                             "queue is rebuilt, every message reads back") {
    write();
    auto seed = test::test_seed();
    std::mt19937 rng{seed};
    // In the units written: their offsets and sizes (a tags code is only
    // checked by verifyStore: docs/reliability.md).
    std::uniform_int_distribution<size_t> unit{0, per_queue - 1};
    std::uniform_int_distribution<size_t> byte{0, 11};
    for (int round = 0; round < 20; ++round) {
      CAPTURE(round);
      for (int n = 0; n < 3; ++n)
        test::flip_byte(cq_file(0), unit(rng) * 20 + byte(rng));
      auto st = test::open_store(cfg);
      check_all(*st);
      // As the broker's queue service does after a read that found a unit
      // whose size is off.
      if (st->needs_repair())
        REQUIRE(st->repair_queues());
      REQUIRE_FALSE(st->close());
    }
    auto rep = verify_store(dir.path(), cfg.index_slots, cfg.index_entries);
    REQUIRE(rep);
    CHECK_MESSAGE(rep->ok(), format_report(*rep));
  }

  TEST_CASE_FIXTURE(fixture, "units outside the log, or a zeroed page: "
                             "rebuilt at open") {
    write();
    SUBCASE("past the end") {
      put_unit(cq_file(0), 5, int64_t{1} << 40, 120);
    }
    SUBCASE("negative") {
      put_unit(cq_file(1), 7, -5, 120);
    }
    SUBCASE("zeroed in the middle") {
      auto text = test::read_file(cq_file(0));
      std::fill(text.begin() + 10 * 20, text.begin() + 20 * 20, '\0');
      test::write_file(cq_file(0), text);
    }
    auto st = test::open_store(cfg);
    CHECK_EQ(st->recovery().rebuilt.size(), 1u);
    check_all(*st);
  }

  TEST_CASE_FIXTURE(fixture, "a unit naming another record is repaired, "
                             "never taken for a damaged record") {
    write();
    // Unit 3 of queue 0 points at unit 4's record: in order, in the log,
    // and wrong.
    auto text = test::read_file(cq_file(0));
    auto phys4 = static_cast<int64_t>(get_be64(text.data() + 4 * 20));
    auto size4 = static_cast<int32_t>(get_be32(text.data() + 4 * 20 + 8));
    auto phys2 = static_cast<int64_t>(get_be64(text.data() + 2 * 20));
    put_unit(cq_file(0), 3, phys2, size4);
    (void)phys4;
    auto st = test::open_store(cfg);
    check_all(*st);
  }

  TEST_CASE_FIXTURE(fixture, "a unit whose size alone is off: the read "
                             "serves the record, the queue is rebuilt") {
    write();
    auto text = test::read_file(cq_file(0));
    auto phys = static_cast<int64_t>(get_be64(text.data() + 6 * 20));
    auto size = static_cast<int32_t>(get_be32(text.data() + 6 * 20 + 8));
    put_unit(cq_file(0), 6, phys, size - 3);
    {
      auto st = test::open_store(cfg);
      CHECK(st->recovery().rebuilt.empty()); // the open-time check passes it
      check_all(*st);
      CHECK(st->needs_repair());
      auto repaired = st->repair_queues();
      REQUIRE(repaired);
      CHECK_EQ(*repaired, 1u);
      check_all(*st);
      CHECK_FALSE(st->needs_repair());
      REQUIRE_FALSE(st->close());
    } // and its lock released
    auto rep = verify_store(dir.path(), cfg.index_slots, cfg.index_entries);
    REQUIRE(rep);
    CHECK_MESSAGE(rep->ok(), format_report(*rep));
  }

  TEST_CASE_FIXTURE(fixture, "a read that meets a damaged unit says so, "
                             "and the queue is rebuilt from the log") {
    write();
    auto st = test::open_store(cfg);
    // Damage on disk under the open store (a shared mapping sees it).
    auto text = test::read_file(cq_file(0));
    put_unit(cq_file(0), 8, static_cast<int64_t>(get_be64(text.data() + 20)),
             static_cast<int32_t>(get_be32(text.data() + 20 + 8)));
    get_message_request req{"T", 0, 8, 10, 1 << 20, {}};
    auto got = st->get_messages(req);
    REQUIRE_FALSE(got);
    CHECK(got.error() == errc::system_busy);
    CHECK_NE(describe(got.error()).find("T/0 unit 8"), std::string::npos);
    CHECK(st->needs_repair());
    // A read from before it stops short of it.
    req.offset = 0;
    auto before = st->get_messages(req);
    REQUIRE(before);
    CHECK_EQ(before->next_begin_offset, 8);
    auto repaired = st->repair_queues();
    REQUIRE(repaired);
    CHECK_EQ(*repaired, 1u);
    CHECK_FALSE(st->needs_repair());
    CHECK_EQ(st->repaired_queues(), 1);
    check_all(*st);
  }

  TEST_CASE_FIXTURE(fixture, "a damaged index is found by verifyStore and "
                             "rebuilt at open: every key is found again") {
    write();
    {
      auto st = test::open_store(cfg);
      check_keys(*st);
      REQUIRE_FALSE(st->close());
    }
    auto file = index_file();
    auto text = test::read_file(file);
    // The first used slot: it points past the entries.
    size_t slot_at = 40;
    while (get_be32(text.data() + slot_at) == 0)
      slot_at += 4;
    put_be32(text.data() + slot_at, 0x7FFF);
    test::write_file(file, text);
    auto rep = verify_store(dir.path(), cfg.index_slots, cfg.index_entries);
    REQUIRE(rep);
    CHECK_FALSE(rep->ok());
    CHECK_NE(format_report(*rep).find("index/"), std::string::npos);
    auto st = test::open_store(cfg);
    REQUIRE_EQ(st->recovery().rebuilt.size(), 1u);
    CHECK_NE(st->recovery().rebuilt[0].find("index"), std::string::npos);
    check_keys(*st);
    check_all(*st);
    REQUIRE_FALSE(st->close());
    st.reset();
    auto clean = verify_store(dir.path(), cfg.index_slots, cfg.index_entries);
    REQUIRE(clean);
    CHECK_MESSAGE(clean->ok(), format_report(*clean));
  }
}
