#include "runtime/message/message_record.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "runtime/message/log_format.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;

namespace {

std::vector<char> encode(const store_message& msg, record_stamp st = {}) {
  std::vector<char> buf(record_size(msg));
  encode_record(msg, st, buf.data());
  return buf;
}

} // namespace

TEST_SUITE("runtime.message_record") {
  TEST_CASE("a record round trips with every field") {
    auto msg = test::make_message("TopicA", 3, "hello", "TagA", "k1 k2", "U1");
    msg.flag = 7;
    msg.sys_flag = sys_flag::multi_tags;
    msg.reconsume_times = 2;
    msg.prepared_transaction_offset = 99;
    msg.born_ip = 0x0A000002;
    msg.born_port = 40123;
    record_stamp st{42, 4096, 1'700'000'000'123, 0x7F000001, 10911};
    auto buf = encode(msg, st);
    CHECK_EQ(buf.size(), record_fixed_size_v1 + 5 + 6 + msg.properties.size());
    record_view rec;
    REQUIRE(decode_record(buf.data(), buf.size(), rec) == decode_status::ok);
    CHECK_EQ(rec.total_size, static_cast<int32_t>(buf.size()));
    CHECK_EQ(rec.magic, message_magic_v1);
    CHECK_EQ(rec.queue_id, 3);
    CHECK_EQ(rec.flag, 7);
    CHECK_EQ(rec.queue_offset, 42);
    CHECK_EQ(rec.phys_offset, 4096);
    CHECK_EQ(rec.sys_flag, sys_flag::multi_tags);
    CHECK_EQ(rec.born_timestamp, msg.born_timestamp);
    CHECK_EQ(rec.store_timestamp, 1'700'000'000'123);
    CHECK_EQ(stored_timestamp(buf.data()), 1'700'000'000'123);
    CHECK_EQ(rec.born_ip, 0x0A000002u);
    CHECK_EQ(rec.born_port, 40123u);
    CHECK_EQ(rec.store_ip, 0x7F000001u);
    CHECK_EQ(rec.store_port, 10911u);
    CHECK_EQ(rec.reconsume_times, 2);
    CHECK_EQ(rec.prepared_transaction_offset, 99);
    CHECK_EQ(rec.body, "hello");
    CHECK_EQ(rec.topic, "TopicA");
    CHECK_EQ(find_property(rec.properties, "TAGS"), "TagA");
    CHECK_EQ(find_property(rec.properties, "KEYS"), "k1 k2");
    CHECK_EQ(find_property(rec.properties, "UNIQ_KEY"), "U1");
    CHECK(find_property(rec.properties, "TAG").empty());
  }

  TEST_CASE("a pull buffer decodes into its records, strictly") {
    std::string buf;
    for (auto body : {"one", "two", "three"}) {
      auto rec = encode(test::make_message("TopicA", 0, body, "", "", ""));
      buf.append(rec.data(), rec.size());
    }
    auto recs = decode_records(buf, 3);
    REQUIRE(recs);
    REQUIRE_EQ(recs->size(), 3u);
    CHECK_EQ((*recs)[2].body, "three");
    CHECK_FALSE(decode_records(buf, 4));
    CHECK_FALSE(decode_records(buf, 2)); // bytes left over
    auto flipped = buf;
    flipped[flipped.rfind("three")] ^= 1; // the last body: its CRC fails
    CHECK_FALSE(decode_records(flipped, 3));
    CHECK(decode_records("", 0));
    // Without a count: every record up to the end of the buffer.
    auto all = decode_records(buf);
    REQUIRE(all);
    CHECK_EQ(all->size(), 3u);
    CHECK_FALSE(decode_records(buf + "xx"));
  }

  TEST_CASE("records of maximum sizes round trip") {
    // Topic of 127 bytes (still V1), 4 MiB body, 32 767 bytes of properties.
    store_message msg;
    msg.topic = std::string(127, 't');
    msg.body = std::string(4 * 1024 * 1024, 'b');
    msg.properties = std::string(max_properties_size, 'p');
    auto buf = encode(msg);
    record_view rec;
    REQUIRE(decode_record(buf.data(), buf.size(), rec) == decode_status::ok);
    CHECK_EQ(rec.magic, message_magic_v1);
    CHECK_EQ(rec.body.size(), msg.body.size());
    CHECK_EQ(rec.topic.size(), 127u);
    CHECK_EQ(rec.properties.size(), max_properties_size);
    // A longer topic switches to V2 with a two-byte topic length.
    msg.topic = std::string(255, 't');
    buf = encode(msg);
    REQUIRE(decode_record(buf.data(), buf.size(), rec) == decode_status::ok);
    CHECK_EQ(rec.magic, message_magic_v2);
    CHECK_EQ(rec.topic.size(), 255u);
  }

  TEST_CASE("a body CRC the sender checked is written as given") {
    auto msg = test::make_message("TopicA", 0, "hello", "TagA", "", "U1");
    auto plain = encode(msg);
    record_view rec;
    REQUIRE(decode_record(plain.data(), plain.size(), rec)
            == decode_status::ok);
    msg.body_crc = rec.body_crc;
    CHECK(encode(msg) == plain);
    // The hint is trusted: a wrong one makes a record that fails its CRC.
    msg.body_crc = rec.body_crc ^ 1;
    auto bad = encode(msg);
    CHECK(decode_record(bad.data(), bad.size(), rec) == decode_status::corrupt);
  }

  TEST_CASE("a flipped body byte fails the CRC") {
    auto buf = encode(test::make_message("T", 0, "payload"));
    buf[buf.size() - 5 - 2 - 1] ^= 0x01; // last body byte (topic "T", no props)
    record_view rec;
    CHECK(decode_record(buf.data(), buf.size(), rec) == decode_status::corrupt);
    CHECK(decode_record(buf.data(), buf.size(), rec, false)
          == decode_status::ok);
  }

  TEST_CASE("a record longer than the bytes left is corrupt") {
    auto buf = encode(test::make_message("T", 0, "payload"));
    record_view rec;
    CHECK(decode_record(buf.data(), buf.size() - 1, rec)
          == decode_status::corrupt);
  }

  TEST_CASE("a damaged length or magic is corrupt") {
    auto buf = encode(test::make_message("T", 0, "payload"));
    record_view rec;
    auto bad_len = buf;
    bad_len[3] ^= 0x04; // total size off by 4
    CHECK(decode_record(bad_len.data(), bad_len.size(), rec)
          == decode_status::corrupt);
    auto bad_magic = buf;
    bad_magic[5] ^= 0x01;
    CHECK(decode_record(bad_magic.data(), bad_magic.size(), rec)
          == decode_status::corrupt);
  }

  TEST_CASE("zeros are the end of data and the blank marker is blank") {
    std::vector<char> zeros(64, 0);
    record_view rec;
    CHECK(decode_record(zeros.data(), zeros.size(), rec)
          == decode_status::end_of_data);
    char blank[8] = {0, 0, 0, 64, '\xCB', '\xD4', '\x31', '\x94'};
    CHECK(decode_record(blank, sizeof(blank), rec) == decode_status::blank);
  }

  TEST_CASE("a record whose length was never written looks unwritten") {
    auto buf = encode(test::make_message("T", 0, "payload"));
    buf[0] = buf[1] = buf[2] = buf[3] = 0; // killed before the last store
    record_view rec;
    CHECK(decode_record(buf.data(), buf.size(), rec) == decode_status::corrupt);
  }

  TEST_CASE("hashes and ids follow RocketMQ") {
    CHECK_EQ(java_hash(""), 0);
    CHECK_EQ(java_hash("a"), 97);
    CHECK_EQ(java_hash("TagA"), 2598919); // "TagA".hashCode() in Java
    CHECK_EQ(tags_code(""), 0);
  }

} // TEST_SUITE
