// The send-back messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON.
#include "messages/broker/send_back.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.broker_send_back") {
  TEST_CASE_FIXTURE(fixture, "send-back messages are registered and "
                             "round-trip") {
    consumer_send_back_request req{4096, "G", 0, "ID1", "TopicA", -1, true};
    CHECK_EQ(name_of<consumer_send_back_request>(),
             "rmq.consumer_send_back_request");
    CHECK(roundtrip(req) == req);
    auto js = nlohmann::json(req);
    CHECK_EQ(js["offset"], 4096);
    CHECK_EQ(js["group"], "G");
    CHECK_EQ(js["max_reconsume_times"], -1);
    CHECK_EQ(js["unit_mode"], true);
    CHECK_EQ(js.get<consumer_send_back_request>(), req);
    CHECK_EQ(name_of<send_back_processor_actor>(),
             "rmq.send_back_processor_actor");
  }
}
