// Send checks and property helpers, each failure with RocketMQ's code.
#include "runtime/message/send_checks.hpp"

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

using namespace rmq;

TEST_SUITE("runtime.send_checks") {
  TEST_CASE("topic names and forbidden system topics") {
    CHECK_FALSE(check_send_topic("TopicA"));
    CHECK_FALSE(check_send_topic("%RETRY%group_1"));
    CHECK(check_send_topic("") == errc::invalid_parameter);
    CHECK(check_send_topic("a b") == errc::invalid_parameter);
    CHECK(check_send_topic(std::string(128, 'a')) == errc::invalid_parameter);
    for (auto t : {"SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC",
                   "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC",
                   "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT"}) {
      CAPTURE(t);
      CHECK(is_not_allowed_send_topic(t));
      CHECK(is_system_topic(t));
      CHECK(check_send_topic(t) == errc::no_permission);
    }
    // System topics a client may still send to.
    for (auto t : {"TBW102", "BenchmarkTest", "RMQ_SYS_TRACE_TOPIC"}) {
      CAPTURE(t);
      CHECK(is_system_topic(t));
      CHECK_FALSE(check_send_topic(t));
    }
    CHECK(is_system_topic("rmq_sys_anything"));
    CHECK_FALSE(is_system_topic("TopicA"));
  }

  TEST_CASE("bodies: empty and oversize are illegal") {
    CHECK(check_body("", 10) == errc::message_illegal);
    CHECK_FALSE(check_body("0123456789", 10));
    auto err = check_body("0123456789a", 10);
    CHECK(err == errc::message_illegal);
    CHECK_NE(error_detail(err).find("11"), std::string::npos);
    CHECK_FALSE(check_body(std::string(default_max_message_size, 'x'),
                           default_max_message_size));
    CHECK(check_body(std::string(default_max_message_size + 1, 'x'),
                     default_max_message_size)
          == errc::message_illegal);
  }

  TEST_CASE("properties: size limit and well-formedness") {
    std::string props;
    append_property(props, "TAGS", "A");
    CHECK_FALSE(check_properties(props));
    CHECK_FALSE(check_properties(""));
    CHECK(check_properties(std::string(max_properties_size + 1, 'a'))
          == errc::message_illegal);
    CHECK(check_properties("novalue\x02") == errc::message_illegal);
    CHECK(check_properties("\x01v\x02") == errc::message_illegal);
  }

  TEST_CASE("delay levels") {
    std::string props;
    CHECK_EQ(delay_level(props, 18).value(), 0);
    append_property(props, property_delay, "3");
    CHECK_EQ(delay_level(props, 18).value(), 3);
    set_property(props, property_delay, "40");
    CHECK_EQ(delay_level(props, 18).value(), 18); // clamped, as RocketMQ
    set_property(props, property_delay, "-1");
    CHECK(delay_level(props, 18).error() == errc::message_illegal);
    set_property(props, property_delay, "3s");
    CHECK(delay_level(props, 18).error() == errc::message_illegal);
  }

  TEST_CASE("set_property replaces, decode/encode round-trip") {
    std::string props;
    append_property(props, "A", "1");
    append_property(props, "CLUSTER", "old");
    append_property(props, "B", "2");
    set_property(props, property_cluster, "c1");
    auto xs = decode_properties(props);
    REQUIRE(xs);
    CHECK_EQ(*xs, (property_list{{"A", "1"}, {"B", "2"}, {"CLUSTER", "c1"}}));
    CHECK_EQ(encode_properties(*xs), props);
    CHECK_EQ(find_property(props, "CLUSTER"), "c1");
    std::string empty;
    set_property(empty, "K", "v");
    CHECK_EQ(empty, "K\x01v\x02");
  }
}
