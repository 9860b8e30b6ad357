// The pull and consumer-offset messages have their wire names, survive
// CAF's binary serialization and render their fields as JSON.
#include "messages/broker/pull.hpp"

#include <typeinfo>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/uniform_type_info_map.hpp"

#include "messages/store/store_actors.hpp"
#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {
  template <class T>
  void check_json(const T& x) {
    T back;
    from_json(nlohmann::json(x), back);
    CHECK(back == x);
  }
};

} // namespace

TEST_SUITE("messages.broker_pull") {
  TEST_CASE_FIXTURE(fixture, "pull messages are registered and round-trip") {
    pull_message_request req;
    req.consumer_group = "G";
    req.topic = "T";
    req.queue_id = 3;
    req.queue_offset = 42;
    req.sys_flag = pull_sys_flag::commit_offset | pull_sys_flag::suspend;
    req.commit_offset = 40;
    req.subscription = "a || b";
    CHECK_EQ(name_of<pull_message_request>(), "rmq.pull_message_request");
    CHECK(roundtrip(req) == req);
    CHECK_EQ(nlohmann::json(req)["subscription"], "a || b");
    check_json(req);
    pull_message_result res;
    res.status = static_cast<uint8_t>(pull_status::no_matched_msg);
    res.next_begin_offset = 7;
    res.max_offset = 9;
    res.buffer = std::string{"\x00\x01raw", 5};
    res.message_count = 1;
    CHECK_EQ(name_of<pull_message_result>(), "rmq.pull_message_result");
    CHECK(roundtrip(res) == res);
    CHECK_EQ(nlohmann::json(res)["next_begin_offset"], 7);
    CHECK_EQ(to_string(pull_status::no_matched_msg), "NO_MATCHED_MSG");
    CHECK_EQ(to_string(pull_status::offset_illegal), "OFFSET_ILLEGAL");
    CHECK_EQ(name_of<pull_processor_actor>(), "rmq.pull_processor_actor");
    CHECK_EQ(name_of<pull_hold_service_actor>(), "rmq.pull_hold_service_actor");
    CHECK_EQ(name_of<arrival_listener_actor>(), "rmq.arrival_listener_actor");
    CHECK_EQ(name_of<queue_watcher_actor>(), "rmq.queue_watcher_actor");
  }

  TEST_CASE_FIXTURE(fixture, "offset messages are registered and round-trip") {
    query_offset_request query{"G", "T", 2, false};
    CHECK_EQ(name_of<query_offset_request>(), "rmq.query_offset_request");
    CHECK(roundtrip(query) == query);
    CHECK_EQ(nlohmann::json(query)["set_zero_if_not_found"], false);
    check_json(query);
    update_offset_request update{"G", "T", 2, 17};
    CHECK_EQ(name_of<update_offset_request>(), "rmq.update_offset_request");
    CHECK(roundtrip(update) == update);
    CHECK_EQ(nlohmann::json(update)["commit_offset"], 17);
    check_json(update);
    list_offsets_request list{"G", ""};
    CHECK_EQ(name_of<list_offsets_request>(), "rmq.list_offsets_request");
    CHECK(roundtrip(list) == list);
    check_json(list);
    group_pull_rate_request rate{"G", "T"};
    CHECK_EQ(name_of<group_pull_rate_request>(), "rmq.group_pull_rate_request");
    CHECK(roundtrip(rate) == rate);
    check_json(rate);
    consumer_offsets offs{"G", "T", {{0, 5}, {3, 9}}};
    CHECK_EQ(name_of<consumer_offsets>(), "rmq.consumer_offsets");
    CHECK(roundtrip(offs) == offs);
    check_json(offs);
    CHECK_EQ(name_of<consumer_offset_table_actor>(),
             "rmq.consumer_offset_table_actor");
  }
}
