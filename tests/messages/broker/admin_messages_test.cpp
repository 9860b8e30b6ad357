// The broker's front-door and admin messages have their wire names,
// survive CAF's binary serialization and render their fields as JSON.
#include "messages/broker/broker.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

using fixture = test::message_fixture;

} // namespace

TEST_SUITE("messages.broker_admin") {
  TEST_CASE_FIXTURE(fixture, "admin messages are registered and round-trip") {
    topic_config tc;
    tc.topic_name = "T";
    tc.read_queue_nums = 4;
    check(update_topic_request{tc}, "rmq.update_topic_request");
    check(delete_topic_in_broker_request{"T"},
          "rmq.delete_topic_in_broker_request");
    check(get_all_topic_config_request{}, "rmq.get_all_topic_config_request");
    subscription_group_config g;
    g.group_name = "G";
    g.retry_max_times = 3;
    check(update_sub_group_request{g}, "rmq.update_sub_group_request");
    check(delete_sub_group_request{"G"}, "rmq.delete_sub_group_request");
    check(get_all_sub_group_request{}, "rmq.get_all_sub_group_request");
    check(earliest_msg_store_time_request{"T", 3},
          "rmq.earliest_msg_store_time_request");
    check(view_message_request{123456789012}, "rmq.view_message_request");
    check(topic_stats_request{"T"}, "rmq.topic_stats_request");
    check(topic_stats{"T", "broker-a", {{0, 1, 9, 1700}, {1, 0, 0, 0}}},
          "rmq.topic_stats");
    check(consume_stats_request{"G", "T"}, "rmq.consume_stats_request");
    check(consume_stats{{{"T", "broker-a", 2, 10, 7, 1234}}, 12.5},
          "rmq.consume_stats");
    check(broker_runtime_info_request{}, "rmq.broker_runtime_info_request");
    check(broker_runtime_info{{{"putTps", "1.0"}, {"flushDiskType", "x"}}},
          "rmq.broker_runtime_info");
    CHECK_EQ(name_of<broker_admin_service_actor>(),
             "rmq.broker_admin_service_actor");
    CHECK_EQ(name_of<broker_actor>(), "rmq.broker_actor");
  }

  TEST_CASE("admin messages render RocketMQ's figures by field name") {
    auto js = nlohmann::json(queue_progress{"T", "broker-a", 2, 10, -1, 0});
    CHECK_EQ(js["broker_offset"], 10);
    CHECK_EQ(js["consumer_offset"], -1);
    auto st = nlohmann::json(queue_stats{1, 2, 3, 4});
    CHECK_EQ(st["last_update_timestamp"], 4);
    auto info = nlohmann::json(broker_runtime_info{{{"putTps", "2.5"}}});
    CHECK_EQ(info["table"]["putTps"], "2.5");
  }
}
