// The delay-level table and the two rewrites of a delayed message.
#include "runtime/message/delay_levels.hpp"

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;

namespace {

std::string prop(const store_message& msg, std::string_view key) {
  return std::string{find_property(msg.properties, key)};
}

store_message delayed(std::string level) {
  store_message msg;
  msg.topic = "TopicA";
  msg.queue_id = 3;
  msg.flag = 5;
  msg.born_timestamp = 1'700'000'000'000;
  msg.born_ip = 0x0A000001;
  msg.born_port = 4000;
  msg.reconsume_times = 2;
  msg.body = "body";
  append_property(msg.properties, "TAGS", "TagA");
  append_property(msg.properties, property_uniq_key, "ID1");
  if (!level.empty())
    append_property(msg.properties, property_delay, level);
  return msg;
}

} // namespace

TEST_SUITE("runtime.delay_levels") {
  TEST_CASE("the default table has RocketMQ's 18 levels") {
    auto t = parse_delay_levels(default_message_delay_level);
    REQUIRE(t);
    REQUIRE_EQ(t->size(), 18u);
    const int64_t want[] = {1'000,     5'000,     10'000,   30'000,  60'000,
                            120'000,   180'000,   240'000,  300'000, 360'000,
                            420'000,   480'000,   540'000,  600'000, 1'200'000,
                            1'800'000, 3'600'000, 7'200'000};
    for (size_t i = 0; i < 18; ++i)
      CHECK_EQ((*t)[i], want[i]);
    CHECK_EQ(level_delay_ms(*t, 1), 1'000);
    CHECK_EQ(level_delay_ms(*t, 25), 7'200'000);
    CHECK_EQ(level_delay_ms(*t, 0), 0);
    CHECK_EQ(deliver_timestamp(*t, 3, 1'000'000), 1'010'000);
    auto d = parse_delay_levels(" 2d  1s ");
    REQUIRE(d);
    CHECK_EQ(*d, delay_table{172'800'000, 1'000});
  }

  TEST_CASE("bad tables are refused") {
    for (auto bad : {"", "   ", "1x", "s", "1.5s", "-1s", "10"}) {
      CAPTURE(bad);
      auto t = parse_delay_levels(bad);
      REQUIRE_FALSE(t);
      CHECK_EQ(t.error(), errc::invalid_parameter);
    }
  }

  TEST_CASE("levels map to queues of SCHEDULE_TOPIC_XXXX") {
    CHECK_EQ(delay_level_to_queue(1), 0);
    CHECK_EQ(delay_level_to_queue(18), 17);
    CHECK_EQ(queue_to_delay_level(17), 18);
  }

  TEST_CASE("a delayed message is rewritten into the schedule topic") {
    auto msg = delayed("4");
    auto level = to_schedule(msg, 18);
    REQUIRE(level);
    CHECK_EQ(*level, 4);
    CHECK_EQ(msg.topic, schedule_topic);
    CHECK_EQ(msg.queue_id, 3);
    CHECK_EQ(prop(msg, property_real_topic), "TopicA");
    CHECK_EQ(prop(msg, property_real_queue_id), "3");
    CHECK_EQ(prop(msg, property_delay), "4");
    CHECK_EQ(prop(msg, property_uniq_key), "ID1");
    CHECK_EQ(stored_delay_level(msg.properties), 4);
  }

  TEST_CASE("levels above the table are clamped, DELAY too") {
    auto msg = delayed("40");
    auto level = to_schedule(msg, 18);
    REQUIRE(level);
    CHECK_EQ(*level, 18);
    CHECK_EQ(msg.queue_id, 17);
    CHECK_EQ(prop(msg, property_delay), "18");
  }

  TEST_CASE("no delay, level 0 and transaction halves are left alone") {
    for (auto level : {"", "0"}) {
      auto msg = delayed(level);
      auto before = msg;
      CHECK_EQ(to_schedule(msg, 18), 0);
      CHECK(msg == before);
    }
    for (auto flag :
         {sys_flag::transaction_prepared, sys_flag::transaction_rollback}) {
      auto msg = delayed("2");
      msg.sys_flag = flag;
      auto before = msg;
      CHECK_EQ(to_schedule(msg, 18), 0);
      CHECK(msg == before);
    }
    auto commit = delayed("2");
    commit.sys_flag = sys_flag::transaction_commit;
    CHECK_EQ(to_schedule(commit, 18), 2);
    auto bad = delayed("x");
    auto res = to_schedule(bad, 18);
    REQUIRE_FALSE(res);
    CHECK_EQ(res.error(), errc::message_illegal);
  }

  TEST_CASE("a stored schedule record is rebuilt into the real message") {
    auto msg = delayed("2");
    REQUIRE_EQ(to_schedule(msg, 18), 2);
    std::string buf(record_size(msg), '\0');
    record_stamp stamp{7, 0, 1'700'000'005'000, 0x7F000001, 10911};
    encode_record(msg, stamp, buf.data());
    record_view rec;
    REQUIRE(decode_record(buf.data(), buf.size(), rec) == decode_status::ok);
    auto real = from_schedule(rec);
    REQUIRE(real);
    CHECK_EQ(real->topic, "TopicA");
    CHECK_EQ(real->queue_id, 3);
    CHECK_EQ(real->flag, 5);
    CHECK_EQ(real->born_timestamp, 1'700'000'000'000);
    CHECK_EQ(real->born_ip, 0x0A000001u);
    CHECK_EQ(real->born_port, 4000u);
    CHECK_EQ(real->reconsume_times, 2);
    CHECK_EQ(real->body, "body");
    CHECK_EQ(prop(*real, property_delay), "");
    CHECK_EQ(prop(*real, "TAGS"), "TagA");
    CHECK_EQ(prop(*real, property_uniq_key), "ID1");
    CHECK_EQ(prop(*real, property_real_topic), "TopicA");
    CHECK_EQ(prop(*real, property_real_queue_id), "3");
  }

  TEST_CASE("a record without REAL_TOPIC or REAL_QID cannot be rebuilt") {
    for (auto [key, value] :
         {std::pair{"X", "1"}, std::pair{property_real_topic, "T"}}) {
      store_message msg;
      msg.topic = schedule_topic;
      msg.body = "b";
      append_property(msg.properties, key, value);
      std::string buf(record_size(msg), '\0');
      encode_record(msg, {}, buf.data());
      record_view rec;
      REQUIRE(decode_record(buf.data(), buf.size(), rec) == decode_status::ok);
      auto real = from_schedule(rec);
      REQUIRE_FALSE(real);
      CHECK_EQ(real.error(), errc::corrupt_data);
    }
  }
}

TEST_SUITE("runtime.delay_levels.store") {
  TEST_CASE("a schedule unit's tags code is its deliver time, also after "
            "the queues are rebuilt") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.message_delay_level = "1s 7s";
    auto find = [](storage::message_store& st, int32_t queue, int64_t code) {
      get_message_request req{schedule_topic, queue, 0, 32, 1 << 20, {code}};
      auto res = st.get_messages(req);
      REQUIRE(res);
      return res->status == static_cast<uint8_t>(get_status::found);
    };
    {
      auto st = test::open_store(cfg);
      for (auto level : {"2", "5"}) {
        auto msg = test::make_message("TopicA", 1, "b", "TagA");
        append_property(msg.properties, property_delay, level);
        REQUIRE_EQ(to_schedule(msg, 2), 2);
        REQUIRE_FALSE(st->put(msg, 1'700'000'000'000, 0).error);
      }
      REQUIRE(st->flush(st->write_offset()));
      REQUIRE_FALSE(st->dispatch(st->write_offset()));
      CHECK(find(*st, 1, 1'700'000'007'000));
      CHECK_FALSE(find(*st, 1, tags_code("TagA")));
      REQUIRE_FALSE(st->close());
    }
    std::filesystem::remove_all(dir.path() + "/consumequeue");
    std::filesystem::remove(dir.path() + "/checkpoint");
    auto st = test::open_store(cfg);
    CHECK(find(*st, 1, 1'700'000'007'000));
    REQUIRE_FALSE(st->close());
  }

  TEST_CASE("a store with a bad messageDelayLevel does not open") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.message_delay_level = "1q";
    auto st = storage::message_store::open(cfg, 0);
    REQUIRE_FALSE(st);
    CHECK_EQ(st.error(), errc::invalid_parameter);
  }

  TEST_CASE("dedup keeps the scheduled copies of two groups apart") {
    test::temp_dir dir;
    auto st = test::open_store(test::small_config(dir.path()));
    for (auto topic : {"%RETRY%G1", "%RETRY%G2"}) {
      auto msg = test::make_message(topic, 0, "b", "", "", "ID1");
      msg.reconsume_times = 1;
      append_property(msg.properties, property_delay, "3");
      REQUIRE_EQ(to_schedule(msg, 18), 3);
      auto res = st->put(msg, 1'700'000'000'000, 1'700'000'000'000);
      REQUIRE_FALSE(res.error);
      CHECK_FALSE(res.duplicate);
      // A resend of the same scheduled copy is one.
      CHECK(st->put(msg, 1'700'000'000'000, 1'700'000'000'000).duplicate);
      // Its due copy in the real topic is not.
      auto real = test::make_message(topic, 0, "b", "", "", "ID1");
      real.reconsume_times = 1;
      CHECK_FALSE(
        st->put(real, 1'700'000'000'000, 1'700'000'000'000).duplicate);
    }
    REQUIRE_FALSE(st->close());
  }
}
