// The client-side messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON.
#include "messages/client/client.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.client") {
  TEST_CASE_FIXTURE(fixture, "queues and messages are registered and "
                             "round-trip") {
    message_queue q{"TopicA", "broker-a", 3};
    CHECK_EQ(name_of<message_queue>(), "rmq.message_queue");
    CHECK(roundtrip(q) == q);
    auto j = nlohmann::json(q);
    CHECK_EQ(j["topic"], "TopicA");
    CHECK_EQ(j["broker_name"], "broker-a");
    CHECK_EQ(j["queue_id"], 3);
    CHECK(j.get<message_queue>() == q);
    std::vector<message_queue> qs{q, {"TopicA", "broker-b", 0}};
    CHECK_EQ(name_of<std::vector<message_queue>>(),
             "std::vector<rmq.message_queue>");
    CHECK(roundtrip(qs) == qs);

    client_message m;
    m.topic = "TopicA";
    m.tags = "TagA";
    m.keys = "k1 k2";
    m.body = std::string("bin\0ary", 7);
    m.properties = {{"color", "red"}};
    m.delay_level = 3;
    m.flag = 9;
    m.deliver_time_ms = 1'700'000'000'000;
    m.delay_ms = 90'000;
    CHECK_EQ(name_of<client_message>(), "rmq.client_message");
    CHECK(roundtrip(m) == m);
    auto mj = nlohmann::json(m);
    CHECK_EQ(mj["tags"], "TagA");
    CHECK_EQ(mj["properties"]["color"], "red");
    CHECK_EQ(mj["delay_level"], 3);
    CHECK_EQ(mj["deliver_time_ms"], 1'700'000'000'000);
    CHECK_EQ(mj["delay_ms"], 90'000);
    std::vector<client_message> ms{m, m};
    ms[1].body = "second";
    CHECK_EQ(name_of<std::vector<client_message>>(),
             "std::vector<rmq.client_message>");
    CHECK(roundtrip(ms) == ms);
    CHECK(m != ms[1]);
  }

  TEST_CASE_FIXTURE(fixture, "send results are registered and round-trip") {
    client_send_result r;
    r.status = 1;
    r.msg_id = "a,b";
    r.offset_msg_id = "x,y";
    r.queue = {"TopicA", "broker-a", 2};
    r.queue_offset = 40;
    r.entries = {{"a", "x", 40}, {"b", "y", 41}};
    CHECK_EQ(name_of<client_send_result>(), "rmq.client_send_result");
    CHECK(roundtrip(r) == r);
    auto j = nlohmann::json(r);
    CHECK_EQ(j["msg_id"], "a,b");
    CHECK_EQ(j["queue"]["queue_id"], 2);
    CHECK_EQ(j["entries"][1]["queue_offset"], 41);
    CHECK(j.get<client_send_result>() == r);
  }

  TEST_CASE_FIXTURE(fixture, "fault messages are registered and "
                             "round-trip") {
    fault_report rep{"broker-a", 600, true, false};
    CHECK_EQ(name_of<fault_report>(), "rmq.fault_report");
    CHECK(roundtrip(rep) == rep);
    auto rj = nlohmann::json(rep);
    CHECK_EQ(rj["latency_ms"], 600);
    CHECK_EQ(rj["isolation"], true);
    CHECK_EQ(rj["reachable"], false);
    fault_item item{"broker-a", 600, 2000000000, false};
    CHECK_EQ(name_of<fault_item>(), "rmq.fault_item");
    CHECK(roundtrip(item) == item);
    CHECK_EQ(nlohmann::json(item)["available_at_ns"], 2000000000);
    fault_snapshot snap{{item, {"broker-b", 1, 0, true}}};
    CHECK_EQ(name_of<fault_snapshot>(), "rmq.fault_snapshot");
    CHECK(roundtrip(snap) == snap);
    auto sj = nlohmann::json(snap);
    CHECK_EQ(sj["items"].size(), 2u);
    CHECK(sj.get<fault_snapshot>() == snap);
  }

  TEST_CASE_FIXTURE(fixture, "broker lists for heartbeats are registered") {
    broker_data bd;
    bd.cluster = "C";
    bd.broker_name = "broker-a";
    bd.broker_addrs[0] = "127.0.0.1:10911";
    std::vector<broker_data> xs{bd};
    CHECK_EQ(name_of<std::vector<broker_data>>(),
             "std::vector<rmq.broker_data>");
    CHECK(roundtrip(xs) == xs);
  }

  TEST_CASE("queues order by topic, broker name, queue id") {
    message_queue a{"A", "b", 5};
    message_queue b{"A", "c", 0};
    message_queue c{"B", "a", 0};
    CHECK(a < b);
    CHECK(b < c);
    CHECK(message_queue{"A", "b", 1} < a);
    CHECK_FALSE(a < a);
  }
}
