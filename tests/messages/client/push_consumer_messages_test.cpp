// The push consumer's worker messages and handles have their wire names,
// survive CAF's binary serialization and render as JSON.
#include "messages/client/consumer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.push_consumer") {
  TEST_CASE_FIXTURE(fixture, "consume results are registered and "
                             "round-trip") {
    consume_result r;
    r.status = static_cast<uint8_t>(consume_status::reconsume_later);
    r.error = "listener threw: boom";
    r.batch.resize(1);
    r.batch[0].body = "b";
    r.batch[0].queue_offset = 7;
    r.calls = 3;
    r.retried_calls = 1;
    CHECK_EQ(name_of<consume_result>(), "rmq.consume_result");
    CHECK(roundtrip(r) == r);
    auto j = nlohmann::json(r);
    CHECK_EQ(j["status"], 1);
    CHECK_EQ(j["error"], "listener threw: boom");
    CHECK_EQ(j["batch"][0]["queue_offset"], 7);
    CHECK_EQ(j["calls"], 3);
    CHECK_EQ(j["retried_calls"], 1);
    CHECK(j.get<consume_result>() == r);
    CHECK(r != consume_result{});
  }

  TEST_CASE_FIXTURE(fixture, "worker and consumer handles are registered") {
    CHECK_EQ(name_of<consume_worker_actor>(), "rmq.consume_worker_actor");
    CHECK_EQ(name_of<push_consumer_actor>(), "rmq.push_consumer_actor");
  }
}
