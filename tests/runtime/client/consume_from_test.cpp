// The start offset of a queue without a group offset (RocketMQ
// computePullFromWhere), and consumeTimestamp text.
#include "runtime/client/consume_from.hpp"

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"

using namespace rmq;

namespace {

constexpr auto last = consume_from_where::consume_from_last_offset;
constexpr auto first = consume_from_where::consume_from_first_offset;
constexpr auto by_time = consume_from_where::consume_from_timestamp;

start_plan plan(consume_from_where from, const std::string& topic,
                int64_t stored = -1) {
  auto res = plan_start(from, topic, stored, 1700000000000);
  REQUIRE(res);
  return *res;
}

} // namespace

TEST_SUITE("runtime.consume_from") {
  TEST_CASE("a stored offset wins whatever the rule") {
    for (auto from : {last, first, by_time}) {
      for (auto topic : {"T", "%RETRY%G"}) {
        auto p = plan(from, topic, 17);
        CHECK_EQ(p.lookup, start_lookup::none);
        CHECK_EQ(finish_start(p, 999), 17);
      }
    }
    auto zero = plan(last, "T", 0);
    CHECK_EQ(zero.lookup, start_lookup::none);
    CHECK_EQ(finish_start(zero, 999), 0);
  }

  TEST_CASE("last offset: the queue's max; a retry topic from 0") {
    auto p = plan(last, "T");
    CHECK_EQ(p.lookup, start_lookup::max_offset);
    CHECK_EQ(finish_start(p, 250), 250);
    auto r = plan(last, "%RETRY%G");
    CHECK_EQ(r.lookup, start_lookup::none);
    CHECK_EQ(finish_start(r, 250), 0);
  }

  TEST_CASE("first offset: 0") {
    for (auto topic : {"T", "%RETRY%G"}) {
      auto p = plan(first, topic);
      CHECK_EQ(p.lookup, start_lookup::none);
      CHECK_EQ(finish_start(p, 250), 0);
    }
  }

  TEST_CASE("timestamp: search by time; a retry topic from the max") {
    auto p = plan(by_time, "T");
    CHECK_EQ(p.lookup, start_lookup::search_by_time);
    CHECK_EQ(p.timestamp_ms, 1700000000000);
    CHECK_EQ(finish_start(p, 12), 12);
    auto r = plan(by_time, "%RETRY%G");
    CHECK_EQ(r.lookup, start_lookup::max_offset);
    CHECK_EQ(finish_start(r, 40), 40);
  }

  TEST_CASE("a failed store read or lookup is an error") {
    auto res = plan_start(last, "T", -2, 0);
    REQUIRE_FALSE(res);
    CHECK(res.error() == errc::query_not_found);
    auto neg = finish_start(plan(last, "T"), -1);
    REQUIRE_FALSE(neg);
    CHECK(neg.error() == errc::system_error);
  }

  TEST_CASE("consumeTimestamp text is yyyyMMddHHmmss in UTC") {
    CHECK_EQ(parse_consume_timestamp("19700101000000"), 0);
    // 2023-11-14 22:13:20 UTC.
    CHECK_EQ(parse_consume_timestamp("20231114221320"), 1700000000000);
    CHECK_EQ(parse_consume_timestamp("20240229235959"),
             int64_t{1709251199} * 1000);
    CHECK_EQ(format_consume_timestamp(1700000000000), "20231114221320");
    CHECK_EQ(format_consume_timestamp(1700000000999), "20231114221320");
    for (auto bad : {"", "2023111422132", "202311142213200", "2023111422132x",
                     "20231314221320", "20230230000000", "20231114241320",
                     "20230229000000"}) {
      CAPTURE(bad);
      auto res = parse_consume_timestamp(bad);
      REQUIRE_FALSE(res);
      CHECK(res.error() == errc::invalid_parameter);
    }
    CHECK_EQ(default_consume_timestamp(1700000000000),
             1700000000000 - 30 * 60 * 1000);
  }
}
