// The rewrite of a timed message into the timer topic and back, and the
// timer topic's tags code (the slot) in the store.
#include "runtime/message/timer_message.hpp"

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;

namespace {

constexpr int64_t now = 1'700'000'000'250;

std::string prop(const store_message& msg, std::string_view key) {
  return std::string{find_property(msg.properties, key)};
}

store_message timed(std::string_view key, std::string value) {
  store_message msg;
  msg.topic = "TopicA";
  msg.queue_id = 3;
  msg.flag = 5;
  msg.born_timestamp = 1'700'000'000'000;
  msg.reconsume_times = 2;
  msg.body = "body";
  append_property(msg.properties, "TAGS", "TagA");
  append_property(msg.properties, property_uniq_key, "ID1");
  if (!key.empty())
    append_property(msg.properties, key, value);
  return msg;
}

} // namespace

TEST_SUITE("runtime.timer_message") {
  TEST_CASE("the slot is the first multiple of the precision at or after "
            "the deliver time") {
    CHECK_EQ(timer_slot_ms(90'000, 1000), 90'000);
    CHECK_EQ(timer_slot_ms(90'001, 1000), 91'000);
    CHECK_EQ(timer_slot_ms(90'999, 1000), 91'000);
    CHECK_EQ(timer_slot_ms(90'050, 100), 90'100);
  }

  TEST_CASE("each form is rewritten into the timer topic") {
    timer_settings s;
    for (auto [key, value, slot] :
         {std::tuple{property_timer_delay_sec, "90", now + 90'000 + 750},
          std::tuple{property_timer_delay_ms, "90000", now + 90'000 + 750},
          std::tuple{property_timer_deliver_ms, "1700000090000",
                     int64_t{1'700'000'090'000}}}) {
      CAPTURE(key);
      auto msg = timed(key, value);
      auto res = to_timer(msg, now, s);
      REQUIRE(res);
      CHECK_EQ(*res, slot);
      CHECK_EQ(msg.topic, timer_topic);
      CHECK_EQ(msg.queue_id, 0);
      CHECK_EQ(prop(msg, property_real_topic), "TopicA");
      CHECK_EQ(prop(msg, property_real_queue_id), "3");
      CHECK_EQ(prop(msg, property_timer_out_ms), std::to_string(slot));
      CHECK_EQ(stored_timer_out_ms(msg.properties), slot);
      // Already a timer record: not again.
      auto again = msg;
      CHECK_EQ(to_timer(again, now, s), 0);
      CHECK(again.topic == msg.topic);
    }
  }

  TEST_CASE("TIMER_DELAY_SEC wins over TIMER_DELAY_MS over "
            "TIMER_DELIVER_MS") {
    auto msg = timed(property_timer_delay_sec, "10");
    append_property(msg.properties, property_timer_delay_ms, "20000");
    append_property(msg.properties, property_timer_deliver_ms, "1700000300000");
    CHECK_EQ(to_timer(msg, now, {}), now + 10'750);
    msg = timed(property_timer_delay_ms, "20000");
    append_property(msg.properties, property_timer_deliver_ms, "1700000300000");
    CHECK_EQ(to_timer(msg, now, {}), now + 20'750);
  }

  TEST_CASE("plain, due, within the precision: left as they are") {
    auto plain = timed("", "");
    auto copy = plain;
    CHECK_EQ(to_timer(plain, now, {}), 0);
    CHECK(plain == copy);
    for (auto [key, value] :
         {std::pair{property_timer_delay_ms, "999"},
          std::pair{property_timer_delay_ms, "0"},
          std::pair{property_timer_delay_sec, "-5"},
          std::pair{property_timer_deliver_ms, "1700000000000"}}) {
      auto msg = timed(key, value);
      auto before = msg;
      CHECK_EQ(to_timer(msg, now, {}), 0);
      CHECK(msg == before);
    }
  }

  TEST_CASE("beyond timerMaxDelaySec or not a number: message_illegal") {
    timer_settings s;
    auto msg = timed(property_timer_delay_sec, "259200");
    CHECK_EQ(to_timer(msg, now, s), now + 259'200'000 + 750);
    msg = timed(property_timer_delay_sec, "259201");
    auto res = to_timer(msg, now, s);
    REQUIRE_FALSE(res);
    CHECK_EQ(res.error(), errc::message_illegal);
    CHECK_NE(error_detail(res.error()).find("timerMaxDelaySec"),
             std::string::npos);
    s.max_delay_sec = 60;
    msg = timed(property_timer_delay_ms, "61000");
    CHECK_FALSE(to_timer(msg, now, s));
    for (auto [key, value] :
         {std::pair{property_timer_delay_ms, "12x"},
          std::pair{property_timer_delay_sec, "99999999999999999999"},
          std::pair{property_timer_deliver_ms, "soon"}}) {
      msg = timed(key, value);
      res = to_timer(msg, now, {});
      REQUIRE_FALSE(res);
      CHECK_EQ(res.error(), errc::message_illegal);
    }
  }

  TEST_CASE("a delay level wins; its timer properties are dropped") {
    auto msg = timed(property_timer_delay_ms, "5000");
    append_property(msg.properties, property_delay, "3");
    CHECK_EQ(to_timer(msg, now, {}), 0);
    CHECK_EQ(msg.topic, "TopicA");
    CHECK_EQ(prop(msg, property_timer_delay_ms), "");
    CHECK_EQ(prop(msg, property_delay), "3");
  }

  TEST_CASE("prepared and rolled-back transaction messages stay") {
    for (auto flag :
         {sys_flag::transaction_prepared, sys_flag::transaction_rollback}) {
      auto msg = timed(property_timer_delay_ms, "5000");
      msg.sys_flag = flag;
      CHECK_EQ(to_timer(msg, now, {}), 0);
      CHECK_EQ(msg.topic, "TopicA");
    }
  }

  TEST_CASE("the real message is rebuilt from a timer record") {
    auto msg = timed(property_timer_delay_ms, "5000");
    REQUIRE(to_timer(msg, now, {}));
    std::string buf(record_size(msg), '\0');
    record_stamp stamp{7, 0, now, 0x7F000001, 10911};
    encode_record(msg, stamp, buf.data());
    record_view rec;
    REQUIRE(decode_record(buf.data(), buf.size(), rec) == decode_status::ok);
    auto real = from_timer(rec);
    REQUIRE(real);
    CHECK_EQ(real->topic, "TopicA");
    CHECK_EQ(real->queue_id, 3);
    CHECK_EQ(real->flag, 5);
    CHECK_EQ(real->reconsume_times, 2);
    CHECK_EQ(real->body, "body");
    CHECK_EQ(prop(*real, "TAGS"), "TagA");
    CHECK_EQ(prop(*real, property_uniq_key), "ID1");
    CHECK_EQ(prop(*real, property_real_topic), "");
    CHECK_EQ(prop(*real, property_real_queue_id), "");
    CHECK_EQ(prop(*real, property_timer_out_ms), std::to_string(now + 5750));
    // Without REAL_QID it cannot be.
    store_message bad;
    bad.topic = timer_topic;
    bad.body = "b";
    append_property(bad.properties, property_real_topic, "T");
    std::string buf2(record_size(bad), '\0');
    encode_record(bad, {}, buf2.data());
    REQUIRE(decode_record(buf2.data(), buf2.size(), rec) == decode_status::ok);
    CHECK_EQ(from_timer(rec).error(), errc::corrupt_data);
  }
}

TEST_SUITE("runtime.timer_message.store") {
  TEST_CASE("a timer unit's tags code is its slot, also after the queues "
            "are rebuilt") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    auto find = [](storage::message_store& st, int64_t code) {
      get_message_request req{timer_topic, 0, 0, 32, 1 << 20, {code}};
      auto res = st.get_messages(req);
      REQUIRE(res);
      return res->status == static_cast<uint8_t>(get_status::found);
    };
    {
      auto st = test::open_store(cfg);
      auto msg = test::make_message("TopicA", 1, "b", "TagA");
      append_property(msg.properties, property_timer_delay_ms, "7000");
      REQUIRE_EQ(to_timer(msg, now, {}), now + 7750);
      REQUIRE_FALSE(st->put(msg, now, 0).error);
      REQUIRE(st->flush(st->write_offset()));
      REQUIRE_FALSE(st->dispatch(st->write_offset()));
      CHECK(find(*st, now + 7750));
      CHECK_FALSE(find(*st, tags_code("TagA")));
      REQUIRE_FALSE(st->close());
    }
    std::filesystem::remove_all(dir.path() + "/consumequeue");
    std::filesystem::remove(dir.path() + "/checkpoint");
    auto st = test::open_store(cfg);
    CHECK(find(*st, now + 7750));
    REQUIRE_FALSE(st->close());
  }
}
