// A pull's stored records into received messages: inflated bodies,
// properties mapped to fields, message ids, and errors for damage.
#include "runtime/client/received_message.hpp"

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/body_compression.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

using namespace rmq;

namespace {

constexpr uint32_t store_ip = 0x7F000001; // 127.0.0.1
constexpr uint32_t store_port = 10911;

/// A pull result holding `msgs` stored at queue offsets from `first`.
pull_message_result pulled(const std::vector<store_message>& msgs,
                           int64_t first = 0) {
  pull_message_result res;
  res.status = static_cast<uint8_t>(pull_status::found);
  int64_t phys = 1000;
  for (size_t i = 0; i < msgs.size(); ++i) {
    record_stamp st;
    st.queue_offset = first + static_cast<int64_t>(i);
    st.phys_offset = phys;
    st.store_timestamp = 1700000000500 + static_cast<int64_t>(i);
    st.store_ip = store_ip;
    st.store_port = store_port;
    std::string rec(record_size(msgs[i]), '\0');
    encode_record(msgs[i], st, rec.data());
    phys += static_cast<int64_t>(rec.size());
    res.buffer += rec;
  }
  res.message_count = static_cast<int32_t>(msgs.size());
  return res;
}

store_message message(std::string body, property_list props = {}) {
  store_message m;
  m.topic = "TopicA";
  m.queue_id = 2;
  m.flag = 7;
  m.born_timestamp = 1700000000000;
  m.born_ip = 0x0A000001; // 10.0.0.1
  m.born_port = 5000;
  m.body = std::move(body);
  m.properties = encode_properties(props);
  return m;
}

} // namespace

TEST_SUITE("runtime.received_message") {
  TEST_CASE("properties map to tags, keys, ids and the user's own") {
    auto m = message("hello", {{"TAGS", "TagA"},
                               {"KEYS", "k1 k2"},
                               {"UNIQ_KEY", "0A0000010F0A1B2C3D4E5F6070810001"},
                               {"DELAY", "3"},
                               {"color", "red"}});
    m.reconsume_times = 2;
    auto res = decode_pulled(pulled({m}, 42), "broker-a");
    REQUIRE(res);
    REQUIRE_EQ(res->messages.size(), 1u);
    CHECK(res->undecodable.empty());
    CHECK_EQ(res->cut_at, -1);
    auto& x = res->messages.front();
    CHECK_EQ(x.topic, "TopicA");
    CHECK_EQ(x.tags, "TagA");
    CHECK_EQ(x.keys, "k1 k2");
    CHECK_EQ(x.body, "hello");
    CHECK_EQ(x.msg_id, "0A0000010F0A1B2C3D4E5F6070810001");
    CHECK_EQ(x.offset_msg_id, encode_offset_msg_id(store_ip, store_port, 1000));
    CHECK_EQ(x.properties,
             (std::map<std::string, std::string>{{"color", "red"}}));
    CHECK_EQ(x.system_properties.at("TAGS"), "TagA");
    CHECK_EQ(x.system_properties.count("color"), 0u);
    CHECK_EQ(x.broker_name, "broker-a");
    CHECK_EQ(x.queue_id, 2);
    CHECK_EQ(x.queue_offset, 42);
    CHECK_EQ(x.commit_log_offset, 1000);
    CHECK_EQ(x.reconsume_times, 2);
    CHECK_EQ(x.delay_level, 3);
    CHECK_EQ(x.flag, 7);
    CHECK_EQ(x.born_timestamp, 1700000000000);
    CHECK_EQ(x.store_timestamp, 1700000000500);
    CHECK_EQ(x.born_host, "10.0.0.1:5000");
    CHECK_EQ(x.store_host, "127.0.0.1:10911");
    CHECK_EQ(x.stored_size, 5);
  }

  TEST_CASE("without UNIQ_KEY the id is the offsetMsgId") {
    auto res = decode_pulled(pulled({message("a"), message("b")}), "b");
    REQUIRE(res);
    auto& msgs = res->messages;
    REQUIRE_EQ(msgs.size(), 2u);
    for (auto& x : msgs) {
      CHECK_EQ(x.msg_id, x.offset_msg_id);
      CHECK(x.tags.empty());
      CHECK_EQ(x.delay_level, 0);
    }
    CHECK_NE(msgs[0].msg_id, msgs[1].msg_id);
    CHECK_EQ(msgs[1].queue_offset, 1);
  }

  TEST_CASE("a compressed body comes back inflated") {
    std::string big(10000, 'x');
    auto m = message(compress_body(big, 5), {{"TAGS", "T"}});
    m.sys_flag = sys_flag::compressed;
    auto stored = m.body.size();
    auto res = decode_pulled(pulled({m, message("plain")}), "b");
    REQUIRE(res);
    REQUIRE_EQ(res->messages.size(), 2u);
    CHECK_EQ(res->messages[0].body, big);
    CHECK_EQ(res->messages[0].stored_size, static_cast<int32_t>(stored));
    CHECK_EQ(res->messages[1].body, "plain");
    // Past the limit: undecodable, never cut; the next one still comes.
    auto small = decode_pulled(pulled({m, message("plain")}), "b", 100);
    REQUIRE(small);
    REQUIRE_EQ(small->undecodable.size(), 1u);
    CHECK_EQ(small->undecodable[0].header.queue_offset, 0);
    CHECK_NE(small->undecodable[0].why.find("message_illegal"),
             std::string::npos);
    CHECK(small->undecodable[0].header.body.empty());
    REQUIRE_EQ(small->messages.size(), 1u);
    CHECK_EQ(small->messages[0].body, "plain");
  }

  TEST_CASE("a broken compressed body or bad properties are undecodable, "
            "with the header's ids and offsets") {
    auto m = message("not a zlib stream", {{"UNIQ_KEY", "ABC"}});
    m.sys_flag = sys_flag::compressed;
    auto bad_props = message("x");
    bad_props.properties = std::string{"no-separator-here"};
    auto res = decode_pulled(pulled({m, bad_props, message("ok")}, 7), "b");
    REQUIRE(res);
    REQUIRE_EQ(res->undecodable.size(), 2u);
    auto& first = res->undecodable[0];
    CHECK_NE(first.why.find("corrupt_data"), std::string::npos);
    CHECK_EQ(first.header.queue_offset, 7);
    CHECK_EQ(first.header.commit_log_offset, 1000);
    CHECK_EQ(first.header.topic, "TopicA");
    CHECK_EQ(first.header.msg_id, first.header.offset_msg_id);
    CHECK_NE(res->undecodable[1].why.find("properties"), std::string::npos);
    CHECK_EQ(res->undecodable[1].header.queue_offset, 8);
    REQUIRE_EQ(res->messages.size(), 1u);
    CHECK_EQ(res->messages[0].queue_offset, 9);
  }

  TEST_CASE("damage in a pull's buffer") {
    auto good = pulled({message("first"), message("second"), message("3rd")});
    SUBCASE("a flipped body byte: that record is undecodable") {
      auto bad = good;
      bad.buffer[bad.buffer.rfind("second")] ^= 0x5A;
      auto res = decode_pulled(bad, "b");
      REQUIRE(res);
      REQUIRE_EQ(res->undecodable.size(), 1u);
      CHECK_EQ(res->undecodable[0].header.queue_offset, 1);
      CHECK_NE(res->undecodable[0].why.find("CRC"), std::string::npos);
      CHECK_EQ(res->messages.size(), 2u);
      CHECK_EQ(res->cut_at, -1);
    }
    SUBCASE("a cut buffer: the records before it, pull again after them") {
      auto bad = good;
      bad.buffer.resize(bad.buffer.size() - 3);
      auto res = decode_pulled(bad, "b");
      REQUIRE(res);
      CHECK_EQ(res->messages.size(), 2u);
      CHECK_EQ(res->cut_at, 2);
      CHECK_FALSE(res->cut_why.empty());
    }
    SUBCASE("a damaged first header: nothing to use") {
      auto bad = good;
      bad.buffer[4] ^= 0x5A; // the magic code
      auto res = decode_pulled(bad, "b");
      REQUIRE_FALSE(res);
      CHECK(res.error() == errc::corrupt_data);
    }
    SUBCASE("fewer records than counted") {
      auto bad = good;
      bad.message_count = 4;
      auto res = decode_pulled(bad, "b");
      REQUIRE(res);
      CHECK_EQ(res->messages.size(), 3u);
      CHECK_EQ(res->cut_at, 3);
    }
  }

  TEST_CASE("a pull that found nothing has no messages") {
    pull_message_result res;
    res.status = static_cast<uint8_t>(pull_status::no_new_msg);
    res.buffer = "ignored";
    auto got = decode_pulled(res, "b");
    REQUIRE(got);
    CHECK(got->messages.empty());
  }

  TEST_CASE("a retried message shows its first topic to its group") {
    received_message m;
    m.topic = "%RETRY%G";
    m.system_properties["RETRY_TOPIC"] = "TopicA";
    auto other = m;
    reset_retry_topic(m, "G");
    CHECK_EQ(m.topic, "TopicA");
    reset_retry_topic(other, "H");
    CHECK_EQ(other.topic, "%RETRY%G");
    received_message plain;
    plain.topic = "%RETRY%G";
    reset_retry_topic(plain, "G");
    CHECK_EQ(plain.topic, "%RETRY%G");
  }

  TEST_CASE("one record decodes alone, bytes after it ignored; a torn or "
            "damaged one does not") {
    auto res
      = pulled({message("half", {{"UNIQ_KEY", "K1"}}), message("second")});
    auto one = pulled({message("half", {{"UNIQ_KEY", "K1"}})});
    auto msg = decode_record(one.buffer, "broker-a");
    REQUIRE(msg);
    CHECK_EQ(msg->body, "half");
    CHECK_EQ(msg->msg_id, "K1");
    CHECK_EQ(msg->broker_name, "broker-a");
    CHECK_EQ(msg->commit_log_offset, 1000);
    auto first = decode_record(res.buffer, "broker-a");
    REQUIRE(first);
    CHECK_EQ(first->body, "half");
    auto damaged = one.buffer;
    damaged[damaged.find("half")] ^= 0x1;
    CHECK_EQ(decode_record(damaged, "broker-a").error(),
             make_error(errc::corrupt_data));
    auto torn = one.buffer.substr(0, one.buffer.size() - 1);
    CHECK_EQ(decode_record(torn, "broker-a").error(),
             make_error(errc::corrupt_data));
    CHECK_EQ(decode_record("", "broker-a").error(),
             make_error(errc::corrupt_data));
  }
}
