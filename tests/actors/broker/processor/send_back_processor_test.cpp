// The send-back processor on the deterministic coordinator, in front of the
// real store actors on a temp dir and a stand-in topic config table that
// creates the group topics: retry copies waiting in SCHEDULE_TOPIC_XXXX
// with their DELAY and origin properties, the way to the dead-letter
// topic, refusals and the dump.
#include "actors/broker/processor/send_back_processor.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/broker/store/store_actors.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "tests/actors/broker/commit_log_stand_in.hpp"
#include "tests/actors/broker/topic_table_stub.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

// -- a stand-in commit log that refuses every message ---------------------------

commit_log_writer_actor::behavior_type
refusing_commit_log(commit_log_writer_actor::pointer self, errc code) {
  return test::commit_log_stand_in(self,
                                   [code](commit_log_writer_actor::pointer,
                                          std::vector<store_message>& batch)
                                     -> caf::result<std::vector<put_result>> {
                                     std::vector<put_result> res(batch.size());
                                     for (auto& r : res)
                                       r.error = make_error(code, "stand-in");
                                     return res;
                                   });
}

constexpr uint32_t store_ip = 0x0A000005; // 10.0.0.5
constexpr uint32_t store_port = 10911;
constexpr char uniq[] = "0A0000011092DEADBEEF0036EE850000";

struct fixture : test::deterministic_fixture {
  test::temp_dir dir;
  storage::store_config store_cfg = test::small_config(dir.path());
  std::shared_ptr<storage::message_store> store;
  store_actors actors;
  topic_config_table_actor topics;
  send_back_processor_actor proc;
  send_back_processor_options opts;

  fixture() {
    store_cfg.store_ip = store_ip;
    store_cfg.store_port = store_port;
    opts.store_ip = store_ip;
    opts.store_port = store_port;
    opts.seed = test::test_seed();
    store = test::open_store(store_cfg);
    actors = spawn_store_actors(sys, store, false, 1s);
    track(actors.commit_log);
    track(actors.flusher);
    track(actors.queue_service);
    sched.run();
    test::topic_table_stub_options topts;
    topts.create_group_topics = true;
    topics = spawn(test::topic_table_stub, topts);
    proc = spawn(send_back_processor, opts, topics, actors.queue_service,
                 actors.commit_log);
  }

  ~fixture() {
    // Stop the writer (it closes the store) before `dir` goes.
    caf::anon_send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
    sched.run();
  }

  /// Stores an original into TopicA and returns its commit-log offset.
  int64_t put_original(std::string body = "payload", std::string id = uniq) {
    store_message msg;
    msg.topic = "TopicA";
    msg.queue_id = 2;
    msg.flag = 7;
    msg.born_timestamp = 1'700'000'000'000;
    msg.body = std::move(body);
    append_property(msg.properties, "TAGS", "TagA");
    append_property(msg.properties, "KEYS", "k1");
    append_property(msg.properties, property_uniq_key, id);
    auto res = ask<std::vector<put_result>>(
      actors.commit_log, caf::put_atom::value, std::vector<store_message>{msg});
    REQUIRE_EQ(res.size(), 1u);
    REQUIRE_FALSE(res[0].error);
    return res[0].phys_offset;
  }

  static consumer_send_back_request back(int64_t offset, int32_t level = 0,
                                         int32_t max = -1) {
    return {offset, "G", level, uniq, "TopicA", max, false};
  }

  void send_back(consumer_send_back_request req) {
    ask<caf::ok_atom>(proc, std::move(req));
  }

  caf::error refuse(consumer_send_back_request req) {
    return ask_error<caf::ok_atom>(proc, std::move(req));
  }

  /// Every record of one queue, with the result that owns the views.
  std::vector<record_view> read(const std::string& topic,
                                get_message_result& res) {
    get_message_request req{topic, 0, 0, 1000, 1 << 20, {}};
    res = ask<get_message_result>(actors.queue_service, req);
    if (res.status != static_cast<uint8_t>(get_status::found))
      return {};
    auto recs = decode_pulled(res);
    REQUIRE(recs);
    return *recs;
  }

  /// The copies waiting in SCHEDULE_TOPIC_XXXX for `real`, oldest first.
  std::vector<record_view> scheduled(const std::string& real) {
    kept.clear();
    kept.reserve(18); // the views point into the results
    std::vector<record_view> out;
    for (int32_t q = 0; q < 18; ++q) {
      get_message_request req{schedule_topic, q, 0, 1000, 1 << 20, {}};
      kept.push_back(ask<get_message_result>(actors.queue_service, req));
      if (kept.back().status != static_cast<uint8_t>(get_status::found))
        continue;
      auto recs = decode_pulled(kept.back());
      REQUIRE(recs);
      for (auto& rec : *recs)
        if (find_property(rec.properties, property_real_topic) == real)
          out.push_back(rec);
    }
    std::sort(out.begin(), out.end(),
              [](auto& x, auto& y) { return x.phys_offset < y.phys_offset; });
    return out;
  }

  std::vector<get_message_result> kept;

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(proc, dump_atom::value));
  }
};

std::string prop(const record_view& rec, std::string_view key) {
  return std::string{find_property(rec.properties, key)};
}

} // namespace

TEST_SUITE("broker.send_back_processor") {
  TEST_CASE_FIXTURE(fixture, "a first send-back goes to %RETRY%G with DELAY 3 "
                             "and keeps the origin") {
    auto offset = put_original();
    send_back(back(offset));
    get_message_result res;
    // It waits in the schedule topic, queue 3 - 1, for its retry topic.
    CHECK(read("%RETRY%G", res).empty());
    auto recs = scheduled("%RETRY%G");
    REQUIRE_EQ(recs.size(), 1u);
    auto& rec = recs[0];
    CHECK_EQ(rec.topic, schedule_topic);
    CHECK_EQ(rec.queue_id, 2);
    CHECK_EQ(prop(rec, property_real_queue_id), "0");
    CHECK_EQ(rec.reconsume_times, 1);
    CHECK_EQ(rec.body, "payload");
    CHECK_EQ(rec.flag, 7);
    CHECK_EQ(rec.born_timestamp, 1'700'000'000'000);
    CHECK_EQ(prop(rec, property_delay), "3");
    CHECK_EQ(prop(rec, property_retry_topic), "TopicA");
    CHECK_EQ(prop(rec, property_origin_message_id),
             encode_offset_msg_id(store_ip, store_port, offset));
    CHECK_EQ(prop(rec, property_uniq_key), uniq);
    CHECK_EQ(prop(rec, "TAGS"), "TagA");
    CHECK_EQ(prop(rec, "KEYS"), "k1");
    // The retry topic was asked for with RocketMQ's defaults.
    auto asked = nlohmann::json::parse(
      ask<std::string>(topics, dump_atom::value))["asked"];
    REQUIRE_EQ(asked.size(), 1u);
    CHECK_EQ(asked[0]["group"], "G");
    CHECK_EQ(asked[0]["queue_nums"], 1);
    CHECK_EQ(asked[0]["perm"], perm::read_write);
    CHECK_EQ(asked[0]["dlq"], false);
    CHECK(read("%DLQ%G", res).empty());
  }

  TEST_CASE_FIXTURE(fixture, "a consumer's delay level is kept") {
    send_back(back(put_original(), 5));
    auto recs = scheduled("%RETRY%G");
    REQUIRE_EQ(recs.size(), 1u);
    CHECK_EQ(prop(recs[0], property_delay), "5");
    CHECK_EQ(recs[0].queue_id, 4);
  }

  TEST_CASE_FIXTURE(fixture, "16 retries with rising delays, then the "
                             "dead-letter topic") {
    auto first = put_original();
    auto offset = first;
    get_message_result res;
    for (int32_t i = 0; i < 16; ++i) {
      send_back(back(offset));
      auto recs = scheduled("%RETRY%G");
      REQUIRE_EQ(recs.size(), static_cast<size_t>(i + 1));
      auto& rec = recs.back();
      CHECK_EQ(rec.reconsume_times, i + 1);
      // One DELAY only, 3 + the original's reconsume times.
      CHECK_EQ(prop(rec, property_delay), std::to_string(3 + i));
      CHECK_EQ(rec.queue_id, delay_level_to_queue(3 + i));
      CHECK_EQ(prop(rec, property_retry_topic), "TopicA");
      CHECK_EQ(prop(rec, property_origin_message_id),
               encode_offset_msg_id(store_ip, store_port, first));
      offset = rec.phys_offset;
    }
    CHECK(read("%DLQ%G", res).empty());
    // The copy with reconsume times 16 has used up the default maximum.
    send_back(back(offset));
    auto dead = read("%DLQ%G", res);
    REQUIRE_EQ(dead.size(), 1u);
    CHECK_EQ(dead[0].reconsume_times, 17);
    CHECK_EQ(dead[0].body, "payload");
    CHECK_EQ(prop(dead[0], property_delay), "");
    CHECK_EQ(prop(dead[0], property_retry_topic), "TopicA");
    CHECK_EQ(prop(dead[0], property_origin_message_id),
             encode_offset_msg_id(store_ip, store_port, first));
    CHECK_EQ(prop(dead[0], property_uniq_key), uniq);
    CHECK_EQ(scheduled("%RETRY%G").size(), 16u);
    auto d = dump();
    CHECK_EQ(d["retried"], 16);
    CHECK_EQ(d["dead"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a delay level below 0 goes to the dead-letter "
                             "topic at once") {
    send_back(back(put_original(), -1));
    get_message_result res;
    auto dead = read("%DLQ%G", res);
    REQUIRE_EQ(dead.size(), 1u);
    CHECK_EQ(dead[0].topic, "%DLQ%G");
    CHECK_EQ(dead[0].reconsume_times, 1);
    CHECK_EQ(prop(dead[0], property_delay), "");
    CHECK_EQ(prop(dead[0], property_retry_topic), "TopicA");
    CHECK(scheduled("%RETRY%G").empty());
    // Both group topics were created, the DLQ with one queue.
    auto asked = nlohmann::json::parse(
      ask<std::string>(topics, dump_atom::value))["asked"];
    REQUIRE_EQ(asked.size(), 2u);
    CHECK_EQ(asked[1]["dlq"], true);
    CHECK_EQ(asked[1]["queue_nums"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a request's own maximum replaces the group's") {
    auto offset = put_original();
    get_message_result res;
    for (int i = 0; i < 2; ++i) {
      send_back(back(offset, 0, 2));
      auto recs = scheduled("%RETRY%G");
      offset = recs.size() == static_cast<size_t>(i + 1)
                 ? recs.back().phys_offset
                 : -1;
      REQUIRE_GE(offset, 0);
    }
    send_back(back(offset, 0, 2));
    auto dead = read("%DLQ%G", res);
    REQUIRE_EQ(dead.size(), 1u);
    CHECK_EQ(dead[0].reconsume_times, 3);
    // Maximum 0: the first send-back is already dead.
    send_back(
      back(put_original("other", "0A0000011092DEADBEEF0036EE850001"), 0, 0));
    dead = read("%DLQ%G", res);
    REQUIRE_EQ(dead.size(), 2u);
    CHECK_EQ(dead[1].body, "other");
  }

  TEST_CASE_FIXTURE(fixture, "an unknown offset is a clear error and the "
                             "processor goes on") {
    auto offset = put_original();
    auto err = refuse(back(offset + 1'000'000));
    CHECK_EQ(err, errc::system_error);
    CHECK_NE(error_detail(err).find("look message by offset failed, "
                                    + std::to_string(offset + 1'000'000)),
             std::string::npos);
    err = refuse({offset, "", 0, "", "", -1, false});
    CHECK_EQ(err, errc::invalid_parameter);
    // Still serving.
    send_back(back(offset));
    CHECK_EQ(scheduled("%RETRY%G").size(), 1u);
    auto d = dump();
    CHECK_EQ(d["requests"], 3);
    CHECK_EQ(d["failed"], 2);
    CHECK_EQ(d["retried"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a retry topic without write permission refuses "
                             "the send-back") {
    topic_config tc;
    tc.topic_name = "%RETRY%G";
    tc.read_queue_nums = tc.write_queue_nums = 1;
    tc.perm = perm::read;
    ask<data_version>(topics, caf::put_atom::value, tc);
    auto err = refuse(back(put_original()));
    CHECK_EQ(err, errc::no_permission);
  }

  TEST_CASE_FIXTURE(fixture, "store refusals map as on the send path") {
    auto offset = put_original();
    for (auto [code, seen] :
         {std::pair{errc::queue_full, errc::system_busy},
          std::pair{errc::disk_full, errc::service_not_available},
          std::pair{errc::properties_size_exceeded, errc::message_illegal}}) {
      auto log = spawn(refusing_commit_log, code);
      auto other = spawn(send_back_processor, opts, topics,
                         actors.queue_service, log);
      auto err = ask_error<caf::ok_atom>(other, back(offset));
      CHECK_EQ(err, seen);
    }
    CHECK(scheduled("%RETRY%G").empty());
  }

  TEST_CASE_FIXTURE(fixture, "the dump shows options and counters") {
    auto d = dump();
    CHECK_EQ(d["default_max_reconsume_times"], 16);
    CHECK_EQ(d["retry_queue_nums"], 1);
    CHECK_EQ(d["requests"], 0);
  }
}
