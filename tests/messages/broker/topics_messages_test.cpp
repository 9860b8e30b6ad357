// The topic-table messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON.
#include "messages/broker/topics.hpp"

#include <typeinfo>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/uniform_type_info_map.hpp"

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.broker_topics") {
  TEST_CASE_FIXTURE(fixture, "topic table messages are registered and "
                             "round-trip") {
    topic_config tc;
    tc.topic_name = "TopicA";
    tc.read_queue_nums = tc.write_queue_nums = 8;
    topic_config_set set{{tc}, data_version{1, 1700000000000, 3}};
    CHECK_EQ(name_of<topic_config_set>(), "rmq.topic_config_set");
    CHECK(roundtrip(set) == set);
    CHECK_EQ(nlohmann::json(set)["topics"][0]["topic_name"], "TopicA");
    topic_for_send_request send{"T", "TBW102", 4, 0};
    CHECK_EQ(name_of<topic_for_send_request>(), "rmq.topic_for_send_request");
    CHECK(roundtrip(send) == send);
    CHECK_EQ(nlohmann::json(send)["default_queue_nums"], 4);
    group_topic_request group{"G", 1, 6, true};
    CHECK_EQ(name_of<group_topic_request>(), "rmq.group_topic_request");
    CHECK(roundtrip(group) == group);
    CHECK_EQ(nlohmann::json(group)["dlq"], true);
    CHECK_EQ(name_of<topic_config_table_actor>(),
             "rmq.topic_config_table_actor");
  }
}
