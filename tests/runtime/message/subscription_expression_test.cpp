// Subscription expressions: the broker's tags codes, the client's tag
// strings and re-check, and the heartbeat's subscription_data.
#include "runtime/message/subscription_expression.hpp"

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"

using namespace rmq;

TEST_SUITE("runtime.subscription_expression") {
  TEST_CASE("every tag: *, empty or blanks") {
    for (auto all : {"*", "", "  ", " * "}) {
      CAPTURE(all);
      auto expr = parse_subscription_expression(all);
      REQUIRE(expr);
      CHECK(expr->all());
      CHECK_EQ(expr->sub_string, "*");
      CHECK(expr->codes.empty());
      CHECK(expr->matches("anything"));
      CHECK(expr->matches(""));
      auto codes = parse_subscription(all);
      REQUIRE(codes);
      CHECK(codes->empty());
    }
  }

  TEST_CASE("tags are trimmed, kept once, in the order written") {
    auto expr = parse_subscription_expression(" tagA || tagB||tagA ");
    REQUIRE(expr);
    CHECK_FALSE(expr->all());
    CHECK_EQ(expr->sub_string, " tagA || tagB||tagA ");
    CHECK_EQ(expr->tags, (std::vector<std::string>{"tagA", "tagB"}));
    CHECK_EQ(expr->codes,
             (std::vector<int64_t>{tags_code("tagA"), tags_code("tagB")}));
  }

  TEST_CASE("empty tags do not parse") {
    for (auto bad : {"a ||", "||", "a || || b", "|| a"}) {
      CAPTURE(bad);
      auto expr = parse_subscription_expression(bad);
      REQUIRE_FALSE(expr);
      CHECK(expr.error() == errc::subscription_parse_failed);
      CHECK_FALSE(parse_subscription(bad));
    }
  }

  TEST_CASE("the client re-checks tag strings, not codes") {
    // "Aa" and "BB" have the same Java hash code: the broker's filter lets
    // both through, the client's re-check keeps only the subscribed one.
    REQUIRE_EQ(tags_code("Aa"), tags_code("BB"));
    auto expr = parse_subscription_expression("Aa || tagC");
    REQUIRE(expr);
    CHECK(expr->matches("Aa"));
    CHECK(expr->matches("tagC"));
    CHECK_FALSE(expr->matches("BB"));
    CHECK_FALSE(expr->matches(""));
    CHECK_FALSE(expr->matches("Aa || tagC"));
    // The broker gets each code once even when two tags share it.
    auto codes = parse_subscription("Aa || BB");
    REQUIRE(codes);
    CHECK_EQ(codes->size(), 1u);
  }

  TEST_CASE("subscription_data for heartbeats") {
    auto expr = parse_subscription_expression("tagA || tagB");
    REQUIRE(expr);
    auto data = make_subscription_data("T", *expr, 1700000000000);
    CHECK_EQ(data.topic, "T");
    CHECK_EQ(data.sub_string, "tagA || tagB");
    CHECK_EQ(data.expression_type, "TAG");
    CHECK_EQ(data.tags_set, (std::vector<std::string>{"tagA", "tagB"}));
    CHECK_EQ(data.code_set,
             (std::vector<int32_t>{java_hash("tagA"), java_hash("tagB")}));
    CHECK_EQ(data.sub_version, 1700000000000);
    auto all = make_subscription_data("T", *parse_subscription_expression(""),
                                      7);
    CHECK_EQ(all.sub_string, "*");
    CHECK(all.tags_set.empty());
    CHECK(all.code_set.empty());
  }
}
