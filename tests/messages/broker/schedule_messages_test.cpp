// The schedule service's messages have their wire names, survive CAF's
// binary serialization and render their fields as JSON.
#include "messages/broker/schedule.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.broker_schedule") {
  TEST_CASE_FIXTURE(fixture, "schedule messages are registered and "
                             "round-trip") {
    schedule_level_progress lvl{3, 10'000, 7, 9, 5};
    schedule_progress all{{lvl, {4, 30'000, 0, 0, 0}}};
    CHECK_EQ(name_of<schedule_level_progress>(), "rmq.schedule_level_progress");
    CHECK_EQ(name_of<schedule_progress>(), "rmq.schedule_progress");
    CHECK_EQ(name_of<schedule_service_actor>(), "rmq.schedule_service_actor");
    CHECK(roundtrip(lvl) == lvl);
    CHECK(roundtrip(all) == all);
    auto js = nlohmann::json(all);
    REQUIRE_EQ(js["levels"].size(), 2u);
    CHECK_EQ(js["levels"][0]["level"], 3);
    CHECK_EQ(js["levels"][0]["delay_ms"], 10'000);
    CHECK_EQ(js["levels"][0]["offset"], 7);
    CHECK_EQ(js["levels"][0]["max_offset"], 9);
    CHECK_EQ(js["levels"][0]["delivered"], 5);
    CHECK_EQ(js.get<schedule_progress>(), all);
  }
}
