// The dedup table's flat hash table: lookups, expiry, the size bound, and
// generations under random churn against a reference map.
#include "runtime/storage/dedup_table.hpp"

#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "runtime/message/log_format.hpp"

#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace rmq::storage;

TEST_CASE("dedup table: the first offset per key is kept and returned") {
  dedup_table t{std::chrono::milliseconds{1000}};
  t.insert(42, 100, 0);
  t.insert(42, 200, 0);
  auto hit = t.find(42, 0);
  REQUIRE(hit);
  CHECK(*hit == 100);
  CHECK_FALSE(t.find(43, 0));
  // Key 0 is a key like any other.
  t.insert(0, 300, 0);
  REQUIRE(t.find(0, 0));
  CHECK(*t.find(0, 0) == 300);
  CHECK(t.size() == 2);
}

TEST_CASE("dedup table: entries expire after the window, oldest first") {
  dedup_table t{std::chrono::milliseconds{1000}};
  t.insert(1, 1, 0);
  t.insert(2, 2, 500);
  CHECK(t.find(1, 1000));
  CHECK_FALSE(t.find(1, 1001));
  CHECK(t.find(2, 1001));
  CHECK_FALSE(t.find(2, 1501));
  CHECK(t.size() == 0);
}

TEST_CASE("dedup table: past max_entries the oldest go") {
  dedup_table t{std::chrono::milliseconds{1000}, 3};
  for (uint64_t k = 1; k <= 5; ++k)
    t.insert(k, static_cast<int64_t>(k), 0);
  CHECK(t.size() == 3);
  CHECK_FALSE(t.find(1, 0));
  CHECK_FALSE(t.find(2, 0));
  for (uint64_t k = 3; k <= 5; ++k)
    CHECK(t.find(k, 0));
}

TEST_CASE("dedup table: random churn matches a reference map") {
  std::mt19937_64 rng{rmq::test::test_seed()};
  // Few distinct keys and a small bound: many rotations, keys found dead
  // in the previous generation and inserted again.
  constexpr size_t bound = 700;
  dedup_table t{std::chrono::milliseconds{1'000'000}, bound};
  std::map<uint64_t, int64_t> ref;
  std::deque<uint64_t> order;
  for (int64_t i = 0; i < 20'000; ++i) {
    auto key = 1 + rng() % 3000;
    if (ref.count(key) == 0) {
      ref[key] = i;
      order.push_back(key);
      if (order.size() > bound) {
        ref.erase(order.front());
        order.pop_front();
      }
    }
    t.insert(key, ref.count(key) ? ref[key] : i, 0);
    if (i % 97 == 0)
      for (uint64_t k = 1; k <= 3000; ++k) {
        auto hit = t.find(k, 0);
        auto j = ref.find(k);
        REQUIRE(static_cast<bool>(hit) == (j != ref.end()));
        if (hit)
          REQUIRE(*hit == j->second);
      }
  }
  CHECK(t.size() == ref.size());
}

TEST_CASE("dedup table: churn with expiry and the bound matches a model") {
  auto seed = rmq::test::test_seed();
  std::mt19937_64 rng{seed};
  constexpr size_t bound = 500;
  constexpr int64_t window = 200;
  dedup_table t{std::chrono::milliseconds{window}, bound};
  // Every insertion that took, in order: an id is live while it is among
  // the last `bound` of them and not older than the window.
  struct ins {
    uint64_t key;
    int64_t phys;
    int64_t time;
  };
  std::vector<ins> log;
  auto model = [&](uint64_t key, int64_t now) -> std::optional<int64_t> {
    auto n = log.size();
    for (size_t i = n; i > 0 && n - i < bound; --i)
      if (log[i - 1].key == key)
        return log[i - 1].time + window >= now
                 ? std::optional<int64_t>{log[i - 1].phys}
                 : std::nullopt;
    return std::nullopt;
  };
  int64_t now = 0;
  for (int64_t i = 0; i < 20'000; ++i) {
    // Mostly steady, sometimes a pause longer than the window.
    now += rng() % 100 == 0 ? 250 : static_cast<int64_t>(rng() % 3);
    auto key = 1 + rng() % 1500;
    if (!model(key, now))
      log.push_back({key, i, now});
    t.insert(key, i, now);
    if (i % 211 == 0) {
      size_t live = 0;
      for (uint64_t k = 1; k <= 1500; ++k) {
        auto hit = t.find(k, now);
        auto want = model(k, now);
        INFO("seed " << seed << ", step " << i << ", key " << k);
        REQUIRE(hit == want);
        live += want ? 1 : 0;
      }
      REQUIRE(t.size() == live);
    }
  }
}

TEST_CASE("dedup table: a table of many huge pages keeps every key") {
  // 300,000 keys: two generations, one of 512 Ki slots of 8 B over
  // several growths.
  constexpr uint64_t n = 300'000;
  dedup_table t{std::chrono::milliseconds{1000}, 250'000};
  for (uint64_t k = 1; k <= n; ++k) {
    t.prefetch(k * 0x9e3779b97f4a7c15ULL);
    t.insert(k * 0x9e3779b97f4a7c15ULL, static_cast<int64_t>(k), 0);
  }
  CHECK(t.size() == 250'000);
  size_t found = 0;
  for (uint64_t k = 1; k <= n; ++k) {
    auto hit = t.find(k * 0x9e3779b97f4a7c15ULL, 0);
    if (hit) {
      ++found;
      REQUIRE(*hit == static_cast<int64_t>(k));
    }
    // The oldest 50,000 went past the bound, the rest stay.
    REQUIRE(static_cast<bool>(hit) == (k > n - 250'000));
  }
  CHECK(found == 250'000);
  t.clear();
  CHECK(t.size() == 0);
  CHECK_FALSE(t.find(n * 0x9e3779b97f4a7c15ULL, 0));
  t.insert(7, 7, 0);
  CHECK(*t.find(7, 0) == 7);
}

TEST_CASE("dedup table: a hash hit counts only for the same key") {
  // What the store checks against the record a hit names.
  std::string props = std::string{property_uniq_key} + "\x01" + "ID1\x02";
  record_view rec;
  rec.topic = "T";
  rec.reconsume_times = 0;
  rec.properties = props;
  CHECK(same_dedup_key(rec, "T", props, 0, "ID1"));
  CHECK_FALSE(same_dedup_key(rec, "T", props, 0, "ID2"));
  CHECK_FALSE(same_dedup_key(rec, "U", props, 0, "ID1"));
  CHECK_FALSE(same_dedup_key(rec, "T", props, 1, "ID1"));
  // In the schedule topic the real topics must match too.
  auto sched = props + std::string{property_real_topic} + "\x01" + "A\x02";
  auto other = props + std::string{property_real_topic} + "\x01" + "B\x02";
  rec.topic = schedule_topic;
  rec.properties = sched;
  CHECK(same_dedup_key(rec, schedule_topic, sched, 0, "ID1"));
  CHECK_FALSE(same_dedup_key(rec, schedule_topic, other, 0, "ID1"));
  CHECK(dedup_hash(schedule_topic, sched, 0, "ID1")
        != dedup_hash(schedule_topic, other, 0, "ID1"));
  CHECK(dedup_hash("T", props, 0, "ID1") != dedup_hash("T", props, 1, "ID1"));
}
