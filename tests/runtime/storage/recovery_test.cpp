// One test per recovery rule (after LevelDB's db/log_test.cc): damage the
// files the way a crash or a bad disk would, reopen, check what survives.
#include "runtime/storage/message_store.hpp"

#include <filesystem>

#include <doctest/doctest.h>

#include "runtime/common/wall_clock.hpp"
#include "runtime/storage/checkpoint.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

struct fixture {
  test::temp_dir dir;
  store_config cfg = test::small_config(dir.path());

  std::shared_ptr<message_store> open() {
    return test::open_store(cfg);
  }

  // Writes n messages, returns the results, leaves the store open or
  // closes it cleanly.
  std::vector<put_result> write(int n, bool clean) {
    auto st = open();
    auto res = test::put_n(*st, n);
    if (clean)
      REQUIRE_FALSE(st->close());
    return res;
  }

  std::vector<std::string> names(int first, int n) {
    std::vector<std::string> result;
    for (int i = first; i < first + n; ++i)
      result.push_back("m" + std::to_string(i));
    return result;
  }
};

} // namespace

TEST_SUITE("runtime.recovery") {
  TEST_CASE_FIXTURE(fixture, "a clean restart keeps every offset") {
    auto res = write(20, true);
    auto st = open();
    CHECK_FALSE(st->recovery().crashed);
    CHECK_EQ(st->write_offset(), res.back().phys_offset + res.back().size);
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 20});
    CHECK_EQ(test::read_all(*st), names(0, 20));
    auto next = st->put(test::make_message("T", 0, "m20"), 1, 0);
    CHECK_EQ(next.queue_offset, 20);
  }

  TEST_CASE_FIXTURE(fixture, "a checkpoint over many dirty queues syncs the "
                             "file system once, not each queue") {
    cfg.cq_syncfs_threshold = 2;
    auto st = open();
    auto put_all = [&](int round) {
      for (int32_t q = 0; q < 5; ++q)
        REQUIRE_FALSE(
          st->put(test::make_message("T", q, "r" + std::to_string(round)), 1, 0)
            .error);
      REQUIRE(st->flush(st->write_offset()));
      REQUIRE_FALSE(st->dispatch(st->write_offset()));
    };
    put_all(0);
    // A failing per-file sync would fail the checkpoint: none is made.
    cfg.faults->fail_sync = 1;
    CHECK_FALSE(st->save_checkpoint());
    CHECK_EQ(cfg.faults->fail_sync.load(), 1);
    // Two dirty queues are not many: each is synced on its own.
    cfg.faults->fail_sync = 0;
    for (int32_t q = 0; q < 2; ++q)
      REQUIRE_FALSE(st->put(test::make_message("T", q, "x"), 1, 0).error);
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    cfg.faults->fail_sync = 1;
    CHECK(st->save_checkpoint());
    CHECK_EQ(cfg.faults->fail_sync.load(), 0);
    // Left without a clean close: the queues come back from the checkpoint.
    st.reset();
    auto again = open();
    CHECK(again->recovery().crashed);
    for (int32_t q = 0; q < 5; ++q)
      CHECK_EQ(again->offsets("T", q).max_offset, q < 2 ? 2 : 1);
  }

  TEST_CASE_FIXTURE(fixture, "a checkpoint in two steps lets dispatches go "
                             "on between them and says what was there at "
                             "the first") {
    auto st = open();
    auto put_some = [&](int n) {
      for (int i = 0; i < n; ++i)
        REQUIRE_FALSE(st->put(test::make_message("T", 0, "x"), 1, 0).error);
      REQUIRE(st->flush(st->write_offset()));
      REQUIRE_FALSE(st->dispatch(st->write_offset()));
    };
    put_some(3);
    st->prepare_checkpoint();
    auto at_prepare = st->dispatched_offset();
    // The queue service's lock is free again (a held lock would hang here).
    put_some(2);
    CHECK_GT(st->dispatched_offset(), at_prepare);
    REQUIRE_FALSE(st->finish_checkpoint());
    CHECK_EQ(checkpoint::load(cfg.dir + "/checkpoint").dispatched_offset,
             at_prepare);
    // A failed sync fails the checkpoint; the next one syncs the whole file
    // system (no per-file sync, so the injected failure is not used).
    put_some(1);
    st->prepare_checkpoint();
    cfg.faults->fail_sync = 1;
    CHECK(st->finish_checkpoint());
    CHECK_EQ(cfg.faults->fail_sync.load(), 0);
    CHECK_EQ(checkpoint::load(cfg.dir + "/checkpoint").dispatched_offset,
             at_prepare);
    put_some(1);
    st->prepare_checkpoint();
    cfg.faults->fail_sync = 1;
    REQUIRE_FALSE(st->finish_checkpoint());
    CHECK_EQ(cfg.faults->fail_sync.load(), 1);
    CHECK_EQ(checkpoint::load(cfg.dir + "/checkpoint").dispatched_offset,
             st->dispatched_offset());
    // Nothing prepared: nothing to do.
    cfg.faults->fail_sync = 0;
    CHECK_FALSE(st->finish_checkpoint());
    // A whole checkpoint while one is prepared syncs the prepared one's
    // files too (they count as synced already), so it cannot say more
    // than is durable; the prepared one is then gone.
    put_some(1);
    st->prepare_checkpoint();
    cfg.faults->fail_sync = 1;
    CHECK(st->save_checkpoint());
    CHECK_EQ(cfg.faults->fail_sync.load(), 0);
    CHECK_FALSE(st->finish_checkpoint());
    // Left without a clean close: everything is back.
    st.reset();
    auto again = open();
    CHECK(again->recovery().crashed);
    CHECK_EQ(again->offsets("T", 0).max_offset, 8);
  }

  TEST_CASE_FIXTURE(fixture, "a restart after a crash keeps every record") {
    write(20, false);
    auto st = open();
    CHECK(st->recovery().crashed);
    CHECK_EQ(test::read_all(*st), names(0, 20));
  }

  TEST_CASE_FIXTURE(fixture, "a flipped byte in the last record is cut on a "
                             "clean restart") {
    auto res = write(10, true);
    auto& last = res.back();
    test::flip_byte(test::segment_path(dir.path(), 0),
                    static_cast<size_t>(last.phys_offset + last.size - 1));
    auto st = open();
    CHECK_EQ(st->write_offset(), last.phys_offset);
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 9});
    CHECK_EQ(test::read_all(*st), names(0, 9));
    // The store takes writes afterwards, continuing the queue offsets.
    test::put_n(*st, 1, 100);
    CHECK_EQ(st->offsets("T", 0).max_offset, 10);
    REQUIRE_FALSE(st->close());
    st.reset(); // one open store per folder
    auto again = open();
    auto all = names(0, 9);
    all.push_back("m100");
    CHECK_EQ(test::read_all(*again), all);
  }

  TEST_CASE_FIXTURE(fixture, "a flipped byte in the last record is cut after "
                             "a crash") {
    auto res = write(10, false);
    auto& last = res.back();
    test::flip_byte(test::segment_path(dir.path(), 0),
                    static_cast<size_t>(last.phys_offset + 88)); // body
    auto st = open();
    CHECK(st->recovery().crashed);
    CHECK_EQ(st->write_offset(), last.phys_offset);
    CHECK_EQ(test::read_all(*st), names(0, 9));
    CHECK_EQ(st->put(test::make_message("T", 0, "x"), 1, 0).queue_offset, 9);
  }

  TEST_CASE_FIXTURE(fixture, "a torn last record (truncated file) is cut") {
    auto res = write(10, false);
    auto& last = res.back();
    test::truncate_file(test::segment_path(dir.path(), 0),
                        static_cast<size_t>(last.phys_offset + last.size / 2));
    auto st = open();
    CHECK_EQ(st->write_offset(), last.phys_offset);
    CHECK_EQ(test::read_all(*st), names(0, 9));
    test::put_n(*st, 3, 9);
    CHECK_EQ(test::read_all(*st), names(0, 12));
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt record in the middle is skipped, "
                             "everything after it kept") {
    auto res = write(10, true);
    test::flip_byte(test::segment_path(dir.path(), 0),
                    static_cast<size_t>(res[4].phys_offset + 6)); // magic
    auto st = open();
    CHECK_EQ(st->write_offset(), res[9].phys_offset + res[9].size);
    REQUIRE_EQ(st->recovery().corruptions.size(), 1u);
    CHECK_EQ(st->recovery().corruptions[0].offset, res[4].phys_offset);
    CHECK_EQ(st->recovery().corruptions[0].length, res[4].size);
    CHECK_EQ(st->recovery().torn_tail_offset, -1);
    auto got = test::read_skipping(*st);
    auto expected = names(0, 4);
    for (auto& name : names(5, 5))
      expected.push_back(name);
    CHECK_EQ(got.bodies, expected);
    CHECK_EQ(got.corrupt, std::vector<int64_t>{4});
    // New writes continue the queue; the damage stays skipped after restarts.
    test::put_n(*st, 1, 50);
    REQUIRE_FALSE(st->close());
    st.reset(); // one open store per folder
    auto again = open();
    expected.push_back("m50");
    CHECK_EQ(test::read_skipping(*again).bodies, expected);
  }

  TEST_CASE_FIXTURE(fixture, "damage in an earlier segment keeps later "
                             "segments") {
    cfg.segment_size = 4096;
    auto st = open();
    std::vector<put_result> res;
    for (int i = 0; i < 7; ++i)
      res.push_back(
        st->put(test::make_message("T", 0, std::string(1000, 'x')), 1, 0));
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_EQ(st->log().segment_count(), 3u);
    st.reset(); // crash before anything was dispatched
    test::flip_byte(test::segment_path(dir.path(), 4096), 100); // a body
    st = open();
    CHECK_EQ(st->write_offset(), res[6].phys_offset + res[6].size);
    CHECK_EQ(st->log().segment_count(), 3u);
    REQUIRE_EQ(st->recovery().corruptions.size(), 1u);
    CHECK_EQ(st->recovery().corruptions[0].reason, "body CRC mismatch");
    // The damaged record keeps its queue offset and reads as corrupt.
    CHECK_EQ(st->offsets("T", 0).max_offset, 7);
    auto got = test::read_skipping(*st);
    CHECK_EQ(got.bodies.size(), 6u);
    CHECK_EQ(got.corrupt, std::vector<int64_t>{3});
  }

  TEST_CASE_FIXTURE(fixture, "consume queues ahead of the commit log are "
                             "trimmed") {
    auto res = write(10, true);
    // Cut the log under the queue: its last 3 units point past the end.
    test::truncate_file(test::segment_path(dir.path(), 0),
                        static_cast<size_t>(res[7].phys_offset));
    auto st = open();
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 7});
    CHECK_EQ(st->put(test::make_message("T", 0, "x"), 1, 0).queue_offset, 7);
  }

  TEST_CASE_FIXTURE(fixture, "consume queues behind the commit log are rebuilt "
                             "after a crash") {
    auto st = open();
    test::put_n(*st, 10);
    REQUIRE_FALSE(st->save_checkpoint()); // queues durable up to 10
    test::put_n(*st, 10, 10);
    st.reset(); // crash
    // The last 10 units never reached the disk.
    auto cq = dir.path() + "/consumequeue/T/0/" + offset_file_name(0);
    std::vector<char> zeros(200, 0);
    {
      std::fstream f{cq, std::ios::in | std::ios::out | std::ios::binary};
      f.seekp(200);
      f.write(zeros.data(), 200);
    }
    st = open();
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 20});
    CHECK_EQ(test::read_all(*st), names(0, 20));
  }

  TEST_CASE_FIXTURE(fixture, "deleted consume queues are rebuilt from the "
                             "commit log") {
    write(15, true);
    std::filesystem::remove_all(dir.path() + "/consumequeue");
    auto st = open();
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 15});
    CHECK_EQ(test::read_all(*st), names(0, 15));
    CHECK_EQ(st->query({"T", "nokey", 10, 0, INT64_MAX}).phys_offsets.size(),
             0u);
  }

  TEST_CASE_FIXTURE(fixture, "a damaged checkpoint makes recovery scan the "
                             "whole log") {
    write(12, false);
    test::flip_byte(dir.path() + "/checkpoint", 3);
    auto st = open();
    CHECK_EQ(st->recovery().scan_from, 0);
    CHECK_EQ(st->recovery().records, 12);
    CHECK_EQ(test::read_all(*st), names(0, 12));
  }

  TEST_CASE_FIXTURE(fixture, "index entries are rebuilt after a crash") {
    auto st = open();
    REQUIRE_FALSE(st->save_checkpoint());
    for (int i = 0; i < 5; ++i)
      st->put(test::make_message("T", 0, "b" + std::to_string(i), "", "K"), 1,
              0);
    REQUIRE(st->flush(st->write_offset()));
    st.reset(); // crash before anything was dispatched
    st = open();
    CHECK_EQ(st->query({"T", "K", 32, 0, INT64_MAX}).phys_offsets.size(), 5u);
  }

  TEST_CASE_FIXTURE(fixture, "dedup survives a restart within the window") {
    {
      auto st = open();
      st->put(test::make_message("T", 0, "once", "", "", "ID9"),
              system_clock_ms(), 0);
      REQUIRE_FALSE(st->close());
    }
    auto st = open();
    auto again = st->put(test::make_message("T", 0, "once", "", "", "ID9"),
                         system_clock_ms(), 0);
    CHECK(again.duplicate);
    CHECK_EQ(again.queue_offset, 0);
  }

  TEST_CASE_FIXTURE(fixture, "retry copies keeping the UNIQ_KEY are no "
                             "duplicates, before and after a restart") {
    auto copy = [](std::string topic, int32_t times) {
      auto msg = test::make_message(std::move(topic), 0, "m", "", "", "ID7");
      msg.reconsume_times = times;
      return msg;
    };
    {
      auto st = open();
      st->put(copy("T", 0), system_clock_ms(), 0);
      CHECK_FALSE(st->put(copy("%RETRY%G", 1), system_clock_ms(), 0).duplicate);
      CHECK_FALSE(st->put(copy("%RETRY%G", 2), system_clock_ms(), 0).duplicate);
      REQUIRE_FALSE(st->close());
    }
    auto st = open();
    CHECK(st->put(copy("T", 0), system_clock_ms(), 0).duplicate);
    auto again = st->put(copy("%RETRY%G", 2), system_clock_ms(), 0);
    CHECK(again.duplicate);
    CHECK_EQ(again.queue_offset, 1);
    CHECK_FALSE(st->put(copy("%RETRY%G", 3), system_clock_ms(), 0).duplicate);
  }

} // TEST_SUITE
