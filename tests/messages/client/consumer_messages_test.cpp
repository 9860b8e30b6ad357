// The consumer-side messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON.
#include "messages/client/consumer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.consumer") {
  TEST_CASE_FIXTURE(fixture, "received messages are registered and "
                             "round-trip") {
    received_message m;
    m.topic = "TopicA";
    m.tags = "TagA";
    m.keys = "k1 k2";
    m.body = std::string("bin\0ary", 7);
    m.properties = {{"color", "red"}};
    m.system_properties = {{"UNIQ_KEY", "ABC"}, {"TAGS", "TagA"}};
    m.msg_id = "ABC";
    m.offset_msg_id = "7F00000100002A9F0000000000000010";
    m.broker_name = "broker-a";
    m.queue_id = 3;
    m.queue_offset = 42;
    m.commit_log_offset = 16;
    m.reconsume_times = 2;
    m.born_timestamp = 1700000000000;
    m.store_timestamp = 1700000000001;
    m.born_host = "10.0.0.1:5000";
    m.store_host = "127.0.0.1:10911";
    m.delay_level = 3;
    m.flag = 9;
    m.sys_flag = 1;
    m.stored_size = 5;
    CHECK_EQ(name_of<received_message>(), "rmq.received_message");
    CHECK(roundtrip(m) == m);
    auto j = nlohmann::json(m);
    CHECK_EQ(j["msg_id"], "ABC");
    CHECK_EQ(j["queue_offset"], 42);
    CHECK_EQ(j["properties"]["color"], "red");
    CHECK_EQ(j["system_properties"]["TAGS"], "TagA");
    CHECK(j.get<received_message>() == m);
    std::vector<received_message> ms{m, m};
    ms[1].queue_offset = 43;
    CHECK_EQ(name_of<std::vector<received_message>>(),
             "std::vector<rmq.received_message>");
    CHECK(roundtrip(ms) == ms);
    CHECK(m != ms[1]);
  }
}
