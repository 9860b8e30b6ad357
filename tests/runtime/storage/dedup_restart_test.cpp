// The dedup window survives a restart: recovery refills the table from the
// commit-log tail, not only from the records it happens to verify.
#include "runtime/storage/message_store.hpp"

#include <doctest/doctest.h>

#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

constexpr int64_t t0 = 1'700'000'000'000;
constexpr int64_t window_ms = 60'000;

struct fixture {
  test::temp_dir dir;
  store_config cfg = small_config();

  store_config small_config() {
    auto result = test::small_config(dir.path());
    result.segment_size = 4096; // ~30 records: a few segments quickly
    result.dedup_window = std::chrono::milliseconds{window_ms};
    return result;
  }

  std::shared_ptr<message_store> open(int64_t now) {
    auto st = message_store::open(cfg, now);
    REQUIRE_MESSAGE(st, rmq::describe(st.error()));
    return *st;
  }

  static put_result put(message_store& st, const std::string& uniq,
                        int64_t now) {
    auto msg = test::make_message("T", 0, "body of " + uniq, "", "", uniq);
    auto res = st.put(msg, now, now);
    REQUIRE_FALSE(res.error);
    return res;
  }

  // Messages without unique ids until the log has `segments` segments.
  static void fill(message_store& st, size_t segments) {
    while (st.log().segment_count() < segments)
      test::put_n(st, 10);
  }

  static void check_same(const put_result& again, const put_result& orig) {
    CHECK(again.duplicate);
    CHECK_EQ(again.queue_offset, orig.queue_offset);
    CHECK_EQ(again.phys_offset, orig.phys_offset);
    CHECK_EQ(again.size, orig.size);
    CHECK_EQ(again.store_timestamp, orig.store_timestamp);
  }
};

} // namespace

TEST_SUITE("storage.dedup_restart") {
  TEST_CASE_FIXTURE(fixture, "a resend after a clean restart gets the original "
                             "result and is not stored again") {
    auto st = open(t0);
    test::put_n(*st, 3);
    auto orig = put(*st, "U", t0);
    // U ends up in an early segment: a clean restart verifies only the last.
    fill(*st, 4);
    REQUIRE_FALSE(st->close());
    st.reset(); // one open store per folder
    st = open(t0 + 1000);
    REQUIRE_FALSE(st->recovery().crashed);
    REQUIRE_GT(st->recovery().scan_from, orig.phys_offset);
    auto end = st->write_offset();
    auto max = st->offsets("T", 0).max_offset;
    check_same(put(*st, "U", t0 + 1000), orig);
    CHECK_EQ(st->write_offset(), end);
    CHECK_EQ(st->offsets("T", 0).max_offset, max);
  }

  TEST_CASE_FIXTURE(fixture, "a resend after a crash gets the original result "
                             "and is not stored again") {
    auto st = open(t0);
    auto orig = put(*st, "U", t0);
    fill(*st, 3);
    // Recovery after the crash starts at this checkpoint, past U.
    REQUIRE_FALSE(st->save_checkpoint());
    fill(*st, 5);
    st.reset(); // crash: the abort marker stays
    st = open(t0 + 1000);
    REQUIRE(st->recovery().crashed);
    REQUIRE_GT(st->recovery().scan_from, orig.phys_offset);
    auto end = st->write_offset();
    check_same(put(*st, "U", t0 + 1000), orig);
    CHECK_EQ(st->write_offset(), end);
  }

  TEST_CASE_FIXTURE(fixture, "a unique id stored before the window is stored "
                             "again after a restart") {
    auto st = open(t0);
    auto orig = put(*st, "U", t0);
    REQUIRE_FALSE(st->close());
    auto later = t0 + window_ms + 1;
    st.reset(); // one open store per folder
    st = open(later);
    CHECK_EQ(st->dedup_size(), 0u);
    auto again = put(*st, "U", later);
    CHECK_FALSE(again.duplicate);
    CHECK_EQ(again.queue_offset, orig.queue_offset + 1);
  }

  TEST_CASE_FIXTURE(fixture, "a recovered unique id expires when the original "
                             "would have") {
    auto st = open(t0);
    auto orig = put(*st, "U", t0);
    REQUIRE_FALSE(st->close());
    st.reset(); // one open store per folder
    st = open(t0 + window_ms - 1000);
    check_same(put(*st, "U", t0 + window_ms), orig);
    CHECK_FALSE(put(*st, "U", t0 + window_ms + 1).duplicate);
  }

  TEST_CASE_FIXTURE(fixture, "recovery refills exactly the unique ids inside "
                             "the window, each once") {
    auto st = open(t0);
    for (int i = 0; i < 40; ++i) // old: before the window of the restart
      put(*st, "old" + std::to_string(i), t0 + i);
    REQUIRE_GT(st->log().segment_count(), 1u);
    auto recent_from = st->write_offset();
    auto recent_ts = t0 + 2 * window_ms;
    for (int i = 0; i < 60; ++i)
      put(*st, "new" + std::to_string(i), recent_ts + i);
    test::put_n(*st, 0); // flush and dispatch
    REQUIRE_FALSE(st->save_checkpoint());
    st.reset(); // crash: the verifying scan and the dedup scan meet
    st = open(recent_ts + window_ms / 2);
    CHECK_EQ(st->dedup_size(), 60u);
    CHECK_LE(st->log().first_segment_since(recent_ts), recent_from);
    CHECK(put(*st, "new0", recent_ts + 100).duplicate);
    CHECK_FALSE(put(*st, "old39", recent_ts + 100).duplicate);
  }

  TEST_CASE_FIXTURE(fixture, "the dedup scan starts at the last segment older "
                             "than the window") {
    auto st = open(t0);
    std::vector<put_result> res;
    for (int i = 0; i < 200; ++i)
      res.push_back(put(*st, "id" + std::to_string(i), t0 + i * 1000));
    REQUIRE_GT(st->log().segment_count(), 3u);
    auto segment_of = [](const put_result& r) {
      return r.phys_offset / 4096 * 4096;
    };
    CHECK_EQ(st->log().first_segment_since(t0), 0);
    CHECK_EQ(st->log().first_segment_since(t0 + 1'000'000),
             segment_of(res.back()));
    // The segment of the last record stored before t0 + 40 s: every later
    // segment starts at or after it, every earlier one ends before it.
    CHECK_EQ(st->log().first_segment_since(t0 + 40'000), segment_of(res[39]));
    CHECK_GT(segment_of(res[39]), 0);
  }

} // TEST_SUITE
