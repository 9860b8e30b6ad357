// The timer service's messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON.
#include "messages/broker/timer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.broker_timer") {
  TEST_CASE_FIXTURE(fixture, "timer messages are registered and round-trip") {
    queue_units_request req{"rmq_sys_wheel_timer", 0, 40, 128};
    queue_unit u{40, 1234, 200, 1'700'000'090'000};
    queue_units us{3, 90, {u, {41, 1434, 210, 1'700'000'091'000}}};
    timer_progress p{10, 1'700'000'090'000, 1'700'000'089'000, 2000, 41, 49, 7};
    CHECK_EQ(name_of<queue_units_request>(), "rmq.queue_units_request");
    CHECK_EQ(name_of<queue_unit>(), "rmq.queue_unit");
    CHECK_EQ(name_of<queue_units>(), "rmq.queue_units");
    CHECK_EQ(name_of<timer_progress>(), "rmq.timer_progress");
    CHECK_EQ(name_of<timer_service_actor>(), "rmq.timer_service_actor");
    CHECK(roundtrip(req) == req);
    CHECK(roundtrip(u) == u);
    CHECK(roundtrip(us) == us);
    CHECK(roundtrip(p) == p);
    auto jr = nlohmann::json(req);
    CHECK_EQ(jr["offset"], 40);
    CHECK_EQ(jr.get<queue_units_request>(), req);
    auto ju = nlohmann::json(us);
    REQUIRE_EQ(ju["units"].size(), 2u);
    CHECK_EQ(ju["units"][0]["tags_code"], 1'700'000'090'000);
    CHECK_EQ(ju["max_offset"], 90);
    CHECK_EQ(ju.get<queue_units>(), us);
    auto jp = nlohmann::json(p);
    CHECK_EQ(jp["pending"], 10);
    CHECK_EQ(jp["dequeue_lag_ms"], 2000);
    CHECK_EQ(jp["enqueue_behind"], 49);
    CHECK_EQ(jp.get<timer_progress>(), p);
  }
}
