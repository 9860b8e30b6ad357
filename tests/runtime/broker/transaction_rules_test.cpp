// The rules of transactional messages at the broker: a half message and
// back, its check copies, discards and op records; the store's dedup
// tells check copies apart.
#include "runtime/broker/transaction_rules.hpp"

#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/dedup_table.hpp"

using namespace rmq;

namespace {

// Encodes `msg` as a stored record and decodes it again.
struct stored_record {
  std::string buf;
  record_view rec;

  explicit stored_record(const store_message& msg, int64_t queue_offset = 3,
                         int64_t phys = 4096) {
    buf.resize(record_size(msg));
    record_stamp stamp{queue_offset, phys, 1700000000123, 0x7F000001, 10911};
    encode_record(msg, stamp, buf.data());
    REQUIRE_EQ(decode_record(buf.data(), buf.size(), rec, true),
               decode_status::ok);
  }
};

store_message sent() {
  store_message msg;
  msg.topic = "T";
  msg.queue_id = 2;
  msg.flag = 7;
  msg.sys_flag = sys_flag::transaction_prepared;
  msg.born_timestamp = 1700000000000;
  msg.reconsume_times = 0;
  msg.body = "body";
  append_property(msg.properties, property_tran_msg, "true");
  append_property(msg.properties, property_producer_group, "PG");
  append_property(msg.properties, property_uniq_key, "K1");
  append_property(msg.properties, property_tags, "TagA");
  return msg;
}

} // namespace

TEST_SUITE("runtime.transaction_rules") {
  TEST_CASE("which sends are half messages") {
    auto msg = sent();
    CHECK(has_tran_msg(msg.properties));
    CHECK(is_half_message(msg.properties, 0, 0));
    CHECK(is_half_message(msg.properties, 1, 0));
    // An old client's send-back with a level: an ordinary message.
    CHECK_FALSE(is_half_message(msg.properties, 1, 3));
    CHECK_FALSE(is_half_message("", 0, 0));
  }

  TEST_CASE("a half message and its commit") {
    auto msg = sent();
    to_half(msg);
    CHECK_EQ(msg.topic, trans_half_topic);
    CHECK_EQ(msg.queue_id, 0);
    CHECK_EQ(msg.sys_flag & sys_flag::transaction_mask, 0);
    CHECK_EQ(find_property(msg.properties, property_real_topic), "T");
    CHECK_EQ(find_property(msg.properties, property_real_queue_id), "2");
    CHECK_EQ(find_property(msg.properties, property_transaction_id), "K1");
    stored_record half{msg};
    auto real = from_half(half.rec);
    REQUIRE(real);
    CHECK_EQ(real->topic, "T");
    CHECK_EQ(real->queue_id, 2);
    CHECK_EQ(real->flag, 7);
    CHECK_EQ(real->body, "body");
    CHECK_EQ(real->born_timestamp, 1700000000000);
    CHECK_EQ(real->sys_flag & sys_flag::transaction_mask,
             sys_flag::transaction_commit);
    CHECK_EQ(real->prepared_transaction_offset, 4096);
    CHECK(find_property(real->properties, property_real_topic).empty());
    CHECK(find_property(real->properties, property_tran_msg).empty());
    CHECK_EQ(find_property(real->properties, property_tags), "TagA");
    CHECK_EQ(find_property(real->properties, property_uniq_key), "K1");
    // Without REAL_TOPIC there is nothing to commit to.
    auto broken = sent();
    broken.topic = trans_half_topic;
    stored_record bad{broken};
    CHECK_EQ(from_half(bad.rec).error(), errc::corrupt_data);
  }

  TEST_CASE("check copies, discards and op records") {
    auto msg = sent();
    to_half(msg);
    stored_record half{msg};
    auto copy = half_copy(half.rec, 3);
    CHECK_EQ(copy.topic, trans_half_topic);
    CHECK_EQ(stored_check_times(copy.properties), 3);
    CHECK_EQ(stored_check_times(msg.properties), 0);
    auto gone = to_check_max_time(half.rec);
    CHECK_EQ(gone.topic, trans_check_max_time_topic);
    CHECK_EQ(gone.queue_id, 0);
    CHECK_EQ(gone.body, "body");
    auto op = make_op_message(12, "K1", 5);
    CHECK_EQ(op.topic, trans_op_half_topic);
    CHECK_EQ(op.body, "12");
    CHECK_EQ(find_property(op.properties, property_tags), "d");
    CHECK_EQ(find_property(op.properties, property_transaction_id), "K1");
    CHECK_EQ(parse_op_offsets("12"), std::vector<int64_t>{12});
    CHECK_EQ(parse_op_offsets("1,2,x,3"), std::vector<int64_t>{1, 2, 3});
    CHECK(parse_op_offsets("").empty());
  }

  TEST_CASE("the check immunity") {
    std::string props;
    CHECK_EQ(check_immunity_ms(props, 6000), 6000);
    append_property(props, property_check_immunity_time, "60");
    CHECK_EQ(check_immunity_ms(props, 6000), 60000);
    std::string minus;
    append_property(minus, property_check_immunity_time, "-1");
    CHECK_EQ(check_immunity_ms(minus, 6000), 6000);
  }

  TEST_CASE("the store's dedup tells check copies apart") {
    auto msg = sent();
    to_half(msg);
    auto first = half_copy(stored_record{msg}.rec, 1);
    auto h0 = storage::dedup_hash(msg.topic, msg.properties, 0, "K1");
    auto h1 = storage::dedup_hash(first.topic, first.properties, 0, "K1");
    CHECK_NE(h0, h1);
    stored_record copy{first};
    CHECK(storage::same_dedup_key(copy.rec, first.topic, first.properties, 0,
                                  "K1"));
    CHECK_FALSE(
      storage::same_dedup_key(copy.rec, msg.topic, msg.properties, 0, "K1"));
  }
}
