// The send messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON.
#include "messages/broker/send.hpp"

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

TEST_SUITE("messages.broker_send") {
  TEST_CASE_FIXTURE(fixture, "send messages are registered and round-trip") {
    send_message_request req;
    req.producer_group = "PG";
    req.topic = "TopicA";
    req.queue_id = 3;
    req.born_timestamp = 1'700'000'000'000;
    req.born_ip = 0x0A000001;
    req.properties = std::string("TAGS\x01"
                                 "A\x02",
                                 7);
    req.batch = true;
    req.body = std::string("\0\1\2", 3);
    CHECK_EQ(name_of<send_message_request>(), "rmq.send_message_request");
    CHECK(roundtrip(req) == req);
    auto j = nlohmann::json(req);
    CHECK_EQ(j["topic"], "TopicA");
    CHECK_EQ(j["default_topic"], "TBW102");
    CHECK_EQ(j["default_queue_nums"], 4);
    CHECK_EQ(j["max_reconsume_times"], 16);
    CHECK_EQ(j["batch"], true);
    CHECK(j.get<send_message_request>() == req);
    send_result res;
    res.status = static_cast<uint8_t>(send_status::flush_disk_timeout);
    res.msg_id = "A,B";
    res.offset_msg_id = "C,D";
    res.queue_id = 3;
    res.queue_offset = 10;
    res.queue_offsets = {10, 11};
    CHECK_EQ(name_of<send_entry>(), "rmq.send_entry");
    CHECK_EQ(name_of<send_result>(), "rmq.send_result");
    CHECK(roundtrip(res) == res);
    auto r = nlohmann::json(res);
    CHECK_EQ(r["queue_offsets"][1], 11);
    CHECK_EQ(r["status"], 1);
    CHECK_EQ(name_of<send_processor_actor>(), "rmq.send_processor_actor");
  }

  TEST_CASE("entries_of splits the joined ids, one entry per queue offset") {
    send_result res;
    res.msg_id = "A1,B22,C333";
    res.offset_msg_id = "X,Y,Z";
    res.queue_offsets = {7, 8, 9};
    auto es = entries_of(res);
    REQUIRE_EQ(es.size(), 3u);
    CHECK_EQ(es[0].msg_id, "A1");
    CHECK_EQ(es[1].msg_id, "B22");
    CHECK_EQ(es[2].msg_id, "C333");
    CHECK_EQ(es[2].offset_msg_id, "Z");
    CHECK_EQ(es[1].queue_offset, 8);
    // Ids short of the offsets leave the rest empty, never out of range.
    res.msg_id = "A1";
    res.offset_msg_id.clear();
    es = entries_of(res);
    REQUIRE_EQ(es.size(), 3u);
    CHECK_EQ(es[0].msg_id, "A1");
    CHECK(es[1].msg_id.empty());
    CHECK(es[2].offset_msg_id.empty());
    res.queue_offsets.clear();
    CHECK(entries_of(res).empty());
  }

  TEST_CASE("send statuses have RocketMQ's names") {
    CHECK_EQ(to_string(send_status::send_ok), "SEND_OK");
    CHECK_EQ(to_string(send_status::flush_disk_timeout), "FLUSH_DISK_TIMEOUT");
    CHECK_EQ(to_string(send_status::flush_slave_timeout),
             "FLUSH_SLAVE_TIMEOUT");
    CHECK_EQ(to_string(send_status::slave_not_available),
             "SLAVE_NOT_AVAILABLE");
  }
}
