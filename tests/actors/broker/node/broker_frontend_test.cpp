// The broker's front actor: every request a client or an admin sends goes
// through it to the right actor and comes back answered, with the errors
// of the inner actors passed on; its dump covers the whole node.
#include "actors/broker/node/broker_frontend.hpp"

#include <set>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/actors/broker/broker_node_fixture.hpp"

using namespace rmq;

namespace {

constexpr int64_t wall_ms = 1'700'000'000'000;

struct fixture : test::broker_node_fixture {
  broker_actor front() {
    return node.frontend;
  }

  void make_topic(const std::string& name, int32_t queues) {
    topic_config tc;
    tc.topic_name = name;
    tc.read_queue_nums = tc.write_queue_nums = queues;
    ask<data_version>(front(), update_topic_request{tc});
  }

  send_result send_to(const std::string& topic, int32_t queue,
                      const std::string& body) {
    send_message_request req;
    req.producer_group = "P";
    req.topic = topic;
    req.queue_id = queue;
    req.body = body;
    return ask<send_result>(front(), req);
  }
};

} // namespace

TEST_SUITE("broker.frontend") {
  TEST_CASE_FIXTURE(fixture, "sends, pulls and offsets go through the front") {
    make_topic("TopicF", 2);
    auto res = send_to("TopicF", 1, "one");
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
    send_to("TopicF", 1, "two");
    pull_message_request pull;
    pull.consumer_group = "G";
    pull.topic = "TopicF";
    pull.queue_id = 1;
    pull.subscription = "*";
    auto got = ask<pull_message_result>(front(), pull);
    CHECK_EQ(got.status, static_cast<uint8_t>(pull_status::found));
    CHECK_EQ(got.message_count, 2);
    ask<caf::ok_atom>(front(), update_offset_request{"G", "TopicF", 1, 1});
    query_offset_request q{"G", "TopicF", 1, true};
    CHECK_EQ(ask<int64_t>(front(), q), 1);
    auto bounds = ask<queue_offsets>(front(), get_offset_request{"TopicF", 1});
    CHECK_EQ(bounds.min_offset, 0);
    CHECK_EQ(bounds.max_offset, 2);
    CHECK_EQ(ask<int64_t>(front(),
                          search_offset_request{"TopicF", 1, wall_ms - 1}),
             0);
    CHECK_GE(ask<int64_t>(front(),
                          earliest_msg_store_time_request{"TopicF", 1}),
             wall_ms);
    CHECK_EQ(
      ask<int64_t>(front(), earliest_msg_store_time_request{"TopicF", 0}), -1);
    // VIEW_MESSAGE_BY_ID: the offset half of the offsetMsgId.
    auto id = decode_offset_msg_id(res.offset_msg_id);
    REQUIRE(id);
    auto raw = ask<std::string>(front(), view_message_request{id->offset});
    record_view rec;
    REQUIRE_EQ(decode_record(raw.data(), raw.size(), rec), decode_status::ok);
    CHECK_EQ(rec.body, "one");
  }

  TEST_CASE_FIXTURE(fixture, "the processors follow the topic table's "
                             "announcements") {
    make_topic("TopicC", 2);
    CHECK_EQ(send_to("TopicC", 1, "a").status,
             static_cast<uint8_t>(send_status::send_ok));
    auto cache = [&](const char* actor) {
      auto js
        = nlohmann::json::parse(ask<std::string>(node.send, dump_atom::value));
      if (std::string{actor} == "pull")
        js = nlohmann::json::parse(
          ask<std::string>(node.pull, dump_atom::value));
      return js["topic_cache"];
    };
    CHECK_GE(cache("send")["hits"].get<int64_t>(), 1);
    // A perm change reaches the copy: the next send is refused without
    // asking the table.
    topic_config ro;
    ro.topic_name = "TopicC";
    ro.read_queue_nums = ro.write_queue_nums = 2;
    ro.perm = perm::read;
    ask<data_version>(front(), update_topic_request{ro});
    send_message_request req;
    req.producer_group = "P";
    req.topic = "TopicC";
    req.queue_id = 0;
    req.body = "b";
    CHECK_EQ(ask_error<send_result>(front(), req).code(),
             static_cast<uint8_t>(errc::no_permission));
    // Fewer queues: a pull of a queue that is gone is out of range.
    ro.perm = perm::read_write;
    ro.read_queue_nums = ro.write_queue_nums = 1;
    ask<data_version>(front(), update_topic_request{ro});
    pull_message_request pull;
    pull.consumer_group = "G";
    pull.topic = "TopicC";
    pull.queue_id = 1;
    CHECK_EQ(ask_error<pull_message_result>(front(), pull).code(),
             static_cast<uint8_t>(errc::invalid_parameter));
    CHECK_GE(cache("pull")["hits"].get<int64_t>(), 1);
    // A deleted topic is asked from the table again (and auto-created).
    ask<data_version>(front(), delete_topic_in_broker_request{"TopicC"});
    auto misses = cache("send")["misses"].get<int64_t>();
    CHECK_EQ(send_to("TopicC", 0, "c").status,
             static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(cache("send")["misses"].get<int64_t>(), misses + 1);
  }

  TEST_CASE_FIXTURE(fixture, "inner errors come back to the client") {
    send_message_request req;
    req.producer_group = "P";
    req.topic = "Bad Topic!";
    req.body = "x";
    CHECK_EQ(ask_error<send_result>(front(), req).code(),
             static_cast<uint8_t>(errc::invalid_parameter));
    req.topic = "TopicOk";
    req.body.clear();
    CHECK_EQ(ask_error<send_result>(front(), req).code(),
             static_cast<uint8_t>(errc::message_illegal));
    topic_config bad;
    bad.topic_name = "SCHEDULE_TOPIC_XXXX";
    CHECK(ask_error<data_version>(front(), update_topic_request{bad}));
    CHECK_EQ(
      ask_error<topic_stats>(front(), topic_stats_request{"NoSuch"}).code(),
      static_cast<uint8_t>(errc::topic_not_exist));
    // Commits name a valid group and topic.
    CHECK_EQ(ask_error<caf::ok_atom>(
               front(), update_offset_request{"bad group", "TopicOk", 0, 1})
               .code(),
             static_cast<uint8_t>(errc::subscription_group_not_exist));
    CHECK_EQ(ask_error<caf::ok_atom>(front(),
                                     update_offset_request{"G", "", 0, 1})
               .code(),
             static_cast<uint8_t>(errc::topic_not_exist));
  }

  TEST_CASE_FIXTURE(fixture, "topics and groups are created, listed and "
                             "deleted") {
    make_topic("TopicA", 3);
    auto all = ask<topic_config_set>(front(), get_all_topic_config_request{});
    auto find = [](const topic_config_set& set, const std::string& name) {
      for (auto& tc : set.topics)
        if (tc.topic_name == name)
          return tc.write_queue_nums;
      return -1;
    };
    CHECK_EQ(find(all, "TopicA"), 3);
    auto before = all.version.counter;
    auto after = ask<data_version>(front(),
                                   delete_topic_in_broker_request{"TopicA"});
    CHECK_GT(after.counter, before);
    all = ask<topic_config_set>(front(), get_all_topic_config_request{});
    CHECK_EQ(find(all, "TopicA"), -1);
    subscription_group_config g;
    g.group_name = "GroupA";
    g.retry_max_times = 5;
    ask<data_version>(front(), update_sub_group_request{g});
    auto groups = ask<subscription_group_set>(front(),
                                              get_all_sub_group_request{});
    auto retries = [](const subscription_group_set& set) {
      for (auto& g : set.groups)
        if (g.group_name == "GroupA")
          return g.retry_max_times;
      return -1;
    };
    CHECK_EQ(retries(groups), 5);
    ask<data_version>(front(), delete_sub_group_request{"GroupA"});
    groups = ask<subscription_group_set>(front(), get_all_sub_group_request{});
    CHECK_EQ(retries(groups), -1);
  }

  TEST_CASE_FIXTURE(fixture, "topic stats and consumer progress per queue") {
    make_topic("TopicS", 2);
    for (int i = 0; i < 3; ++i)
      send_to("TopicS", 0, "m" + std::to_string(i));
    auto stats = ask<topic_stats>(front(), topic_stats_request{"TopicS"});
    CHECK_EQ(stats.broker_name, "broker-a");
    REQUIRE_EQ(stats.queues.size(), 2u);
    CHECK_EQ(stats.queues[0].max_offset, 3);
    CHECK_GE(stats.queues[0].last_update_timestamp, wall_ms);
    CHECK_EQ(stats.queues[1].max_offset, 0);
    CHECK_EQ(stats.queues[1].last_update_timestamp, 0);
    ask<caf::ok_atom>(front(), update_offset_request{"G", "TopicS", 0, 2});
    auto progress = ask<consume_stats>(front(), consume_stats_request{"G", ""});
    REQUIRE_EQ(progress.queues.size(), 2u);
    CHECK_EQ(progress.queues[0].topic, "TopicS");
    CHECK_EQ(progress.queues[0].broker_offset, 3);
    CHECK_EQ(progress.queues[0].consumer_offset, 2);
    // The message before the committed offset 2 (offset 1).
    CHECK_GE(progress.queues[0].last_timestamp, wall_ms);
    CHECK_LE(progress.queues[0].last_timestamp,
             stats.queues[0].last_update_timestamp);
    CHECK_EQ(progress.queues[1].consumer_offset, 0);
    // No pulls by G yet.
    CHECK_EQ(progress.consume_tps, 0.0);
    // Deleting the topic forgets the group's offsets of it, and its
    // consume queues: created again, it starts at offset 0.
    ask<data_version>(front(), delete_topic_in_broker_request{"TopicS"});
    CHECK(ask<consume_stats>(front(), consume_stats_request{"G", ""})
            .queues.empty());
    CHECK_EQ(ask<queue_offsets>(front(), get_offset_request{"TopicS", 0}),
             queue_offsets{0, 0});
    make_topic("TopicS", 2);
    CHECK_EQ(send_to("TopicS", 0, "again").queue_offset, 0);
    // A topic named explicitly is reported even without commits.
    make_topic("TopicT", 1);
    auto one = ask<consume_stats>(front(),
                                  consume_stats_request{"G", "TopicT"});
    REQUIRE_EQ(one.queues.size(), 1u);
    CHECK_EQ(one.queues[0].topic, "TopicT");
  }

  TEST_CASE_FIXTURE(fixture, "runtime info counts puts and gets") {
    make_topic("TopicR", 1);
    send_to("TopicR", 0, "a");
    send_to("TopicR", 0, "b");
    auto info = ask<broker_runtime_info>(front(),
                                         broker_runtime_info_request{});
    auto& t = info.table;
    CHECK_EQ(t.at("msgPutTotalTodayNow"), "2");
    CHECK_EQ(t.at("msgGetTotalTodayNow"), "0");
    CHECK_EQ(t.at("flushDiskType"), "ASYNC_FLUSH");
    CHECK_NE(t.at("commitLogMaxOffset"), "0");
    CHECK_EQ(t.count("putTps"), 1u);
    CHECK_EQ(t.at("scheduleMessageOffset_1"), "0,0");
    CHECK_EQ(t.count("scheduleMessageOffset_18"), 1u);
    CHECK_EQ(t.at("scheduleLagMs"), "0");
  }

  TEST_CASE_FIXTURE(fixture, "the dump covers every actor of the node") {
    auto text = ask<std::string>(front(), dump_atom::value);
    auto js = nlohmann::json::parse(text);
    CHECK_EQ(js["node"], "broker");
    std::set<std::string> names;
    for (auto& part : js["actors"])
      names.insert(part.value("actor", std::string{"?"}));
    for (auto name :
         {"broker_frontend", "commit_log_writer", "flush_service",
          "warm_service", "queue_service", "topic_config_table",
          "consumer_offset_table", "subscription_group_table",
          "queue_lock_table", "client_manager", "send_processor",
          "send_back_processor", "pull_hold_service", "pull_processor",
          "broker_admin_service", "schedule_service", "timer_service",
          "supervisor", "namesrv_registrar"})
      CHECK_MESSAGE(names.count(name) == 1, name);
  }
}
