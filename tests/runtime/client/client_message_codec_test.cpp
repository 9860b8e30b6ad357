// A program's message into the broker's send request: RocketMQ's
// client-side checks (each message_illegal with a reason), the properties
// it carries, compression from the threshold on, and the batch rules.
#include "runtime/client/client_message_codec.hpp"

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/client/received_message.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/message/body_compression.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/send_checks.hpp"

using namespace rmq;

namespace {

client_message msg(std::string body = "hello") {
  client_message m;
  m.topic = "TopicA";
  m.body = std::move(body);
  return m;
}

message_codec_options opts() {
  message_codec_options o;
  o.producer_group = "PG";
  o.max_message_size = 1000;
  o.compress_over = 100;
  o.born_ip = 0x7f000001;
  o.born_port = 4242;
  return o;
}

std::string uniq(int i) {
  auto s = std::to_string(i);
  return std::string(32 - s.size(), '0') + s;
}

/// The error of `m`, which must be message_illegal with a detail that
/// mentions `word`.
void check_illegal(const client_message& m, const std::string& word) {
  auto err = check_client_message(m, opts());
  REQUIRE(err);
  CHECK(err == errc::message_illegal);
  auto detail = error_detail(err);
  CAPTURE(detail);
  CHECK_NE(detail.find(word), std::string::npos);
}

} // namespace

TEST_SUITE("runtime.client_message_codec") {
  TEST_CASE("a plain message passes") {
    CHECK_FALSE(check_client_message(msg(), opts()));
    auto m = msg();
    m.tags = "TagA";
    m.keys = "k1 k2";
    m.delay_level = 18;
    m.properties = {{"color", "red"}, {"INNER_MULTI_DISPATCH", "%LMQ%a"}};
    CHECK_FALSE(check_client_message(m, opts()));
    // %RETRY% topics may take single sends.
    m.topic = "%RETRY%G";
    m.delay_level = 0;
    CHECK_FALSE(check_client_message(m, opts()));
  }

  TEST_CASE("topic and group names take exactly [%|a-zA-Z0-9_-], any "
            "other byte is refused") {
    std::string allowed = "%|_-";
    for (char c = 'a'; c <= 'z'; ++c)
      allowed += c;
    for (char c = 'A'; c <= 'Z'; ++c)
      allowed += c;
    for (char c = '0'; c <= '9'; ++c)
      allowed += c;
    CHECK_FALSE(check_topic(allowed));
    CHECK_FALSE(check_group(allowed));
    for (int b = 0; b < 256; ++b) {
      auto c = static_cast<char>(b);
      if (allowed.find(c) != std::string::npos)
        continue;
      auto name = "T" + std::string(1, c) + "x";
      CHECK_MESSAGE(check_topic(name), b);
      CHECK_MESSAGE(check_group(name), b);
    }
  }

  TEST_CASE("topic checks") {
    auto m = msg();
    m.topic = "";
    check_illegal(m, "topic");
    m.topic = "a b";
    check_illegal(m, "topic");
    m.topic = std::string(128, 't');
    check_illegal(m, "topic");
    m.topic = "SCHEDULE_TOPIC_XXXX";
    check_illegal(m, "forbidden");
    m.topic = "RMQ_SYS_TRANS_HALF_TOPIC";
    check_illegal(m, "forbidden");
  }

  TEST_CASE("body checks") {
    check_illegal(msg(""), "empty");
    CHECK_FALSE(check_client_message(msg(std::string(1000, 'x')), opts()));
    check_illegal(msg(std::string(1001, 'x')), "1001");
  }

  TEST_CASE("delay level outside 0..18") {
    auto m = msg();
    m.delay_level = -1;
    check_illegal(m, "delay level -1");
    m.delay_level = 19;
    check_illegal(m, "delay level 19");
  }

  TEST_CASE("deliver times and delays (RocketMQ 5 timer properties)") {
    auto m = msg();
    m.deliver_time_ms = 1'700'000'000'000;
    CHECK_FALSE(check_client_message(m, opts()));
    auto req = make_send_request(m, uniq(1), 5, opts());
    CHECK_EQ(find_property(req.properties, "TIMER_DELIVER_MS"),
             "1700000000000");
    CHECK(find_property(req.properties, "TIMER_DELAY_MS").empty());
    m = msg();
    m.delay_ms = 90'000;
    CHECK_FALSE(check_client_message(m, opts()));
    req = make_send_request(m, uniq(1), 5, opts());
    CHECK_EQ(find_property(req.properties, "TIMER_DELAY_MS"), "90000");
    CHECK(find_property(req.properties, "TIMER_DELIVER_MS").empty());
    // Neither: no timer property at all.
    req = make_send_request(msg(), uniq(1), 5, opts());
    CHECK(find_property(req.properties, "TIMER_DELAY_MS").empty());
    CHECK(find_property(req.properties, "TIMER_DELIVER_MS").empty());
    m = msg();
    m.delay_ms = -1;
    check_illegal(m, "negative");
    m = msg();
    m.deliver_time_ms = -5;
    check_illegal(m, "negative");
    m = msg();
    m.delay_ms = 1000;
    m.deliver_time_ms = 2000;
    check_illegal(m, "together");
    m = msg();
    m.delay_ms = 1000;
    m.delay_level = 2;
    check_illegal(m, "delay level");
    // The user may not set them as properties: they are reserved.
    m = msg();
    m.properties = {{"TIMER_DELAY_SEC", "5"}};
    check_illegal(m, "used by the system");
  }

  TEST_CASE("separators in tags, keys and properties") {
    auto m = msg();
    m.tags = "a\x01"
             "b";
    check_illegal(m, "tags");
    m = msg();
    m.keys = "k\x02";
    check_illegal(m, "keys");
    m = msg();
    m.properties = {{"a\x02", "v"}};
    check_illegal(m, "separator");
    m.properties = {{"a", "v\x01w"}};
    check_illegal(m, "separator");
  }

  TEST_CASE("blank property names and values") {
    auto m = msg();
    m.properties = {{"", "v"}};
    check_illegal(m, "blank");
    m.properties = {{" \t", "v"}};
    check_illegal(m, "blank");
    m.properties = {{"a", ""}};
    check_illegal(m, "blank");
    m.properties = {{"a", "  "}};
    check_illegal(m, "blank");
  }

  TEST_CASE("RocketMQ's reserved property names") {
    for (auto name : {"KEYS",
                      "TAGS",
                      "WAIT",
                      "DELAY",
                      "UNIQ_KEY",
                      "TRAN_MSG",
                      "CLUSTER",
                      "RETRY_TOPIC",
                      "REAL_TOPIC",
                      "REAL_QID",
                      "PGROUP",
                      "TRACE_ON",
                      "MSG_REGION",
                      "MAX_RECONSUME_TIMES",
                      "TIMER_DELIVER_MS",
                      "TIMER_DELAY_SEC",
                      "__BORNHOST",
                      "BORN_TIMESTAMP",
                      "__CRC32#",
                      "DLQ_ORIGIN_TOPIC",
                      "DLQ_ORIGIN_MESSAGE_ID",
                      "1ST_POP_TIME"}) {
      CAPTURE(name);
      CHECK(is_reserved_property(name));
      auto m = msg();
      m.properties = {{name, "x"}};
      check_illegal(m, name);
    }
    for (auto name : {"", "color", "keys", "INNER_MULTI_DISPATCH",
                      "__SHARDINGKEY", "UNIQ_KEY2"}) {
      CAPTURE(name);
      CHECK_FALSE(is_reserved_property(name));
    }
  }

  TEST_CASE("INNER_MULTI_DISPATCH may not hold a path separator") {
    auto m = msg();
    m.properties = {{"INNER_MULTI_DISPATCH", "%LMQ%a/b"}};
    check_illegal(m, "INNER_MULTI_DISPATCH");
  }

  TEST_CASE("properties over the int16 limit, UNIQ_KEY counted") {
    auto m = msg();
    // name + value + 2 separators, plus WAIT and a 32-character UNIQ_KEY.
    auto fixed = std::string("WAIT\x01true\x02").size()
                 + std::string("UNIQ_KEY\x01\x02").size() + 32
                 + std::string("p\x01\x02").size();
    m.properties = {{"p", std::string(max_properties_size - fixed, 'v')}};
    CHECK_FALSE(check_client_message(m, opts()));
    m.properties["p"] += "v";
    check_illegal(m, "32768");
  }

  TEST_CASE("the request carries the header fields and properties") {
    auto m = msg();
    m.tags = "TagA";
    m.keys = "k1 k2";
    m.delay_level = 3;
    m.flag = 7;
    m.properties = {{"color", "red"}, {"size", "L"}};
    auto req = make_send_request(m, uniq(1), 123456, opts());
    CHECK_EQ(req.producer_group, "PG");
    CHECK_EQ(req.topic, "TopicA");
    CHECK_EQ(req.default_topic, "TBW102");
    CHECK_EQ(req.default_queue_nums, 4);
    CHECK_EQ(req.queue_id, -1);
    CHECK_EQ(req.born_timestamp, 123456);
    CHECK_EQ(req.born_ip, 0x7f000001u);
    CHECK_EQ(req.born_port, 4242u);
    CHECK_EQ(req.flag, 7);
    CHECK_EQ(req.sys_flag, 0);
    CHECK_FALSE(req.batch);
    CHECK_EQ(req.body, "hello");
    auto props = decode_properties(req.properties);
    REQUIRE(props);
    CHECK_EQ(*props, (property_list{{"TAGS", "TagA"},
                                    {"KEYS", "k1 k2"},
                                    {"DELAY", "3"},
                                    {"UNIQ_KEY", uniq(1)},
                                    {"WAIT", "true"},
                                    {"color", "red"},
                                    {"size", "L"}}));
    // Without tags, keys and delay none of them is there.
    auto bare = make_send_request(msg(), uniq(2), 0, opts());
    CHECK_EQ(decode_properties(bare.properties).value(),
             (property_list{{"UNIQ_KEY", uniq(2)}, {"WAIT", "true"}}));
  }

  TEST_CASE("the body is compressed from the threshold on") {
    auto below = make_send_request(msg(std::string(99, 'a')), uniq(1), 0,
                                   opts());
    CHECK_EQ(below.sys_flag & sys_flag::compressed, 0);
    CHECK_EQ(below.body, std::string(99, 'a'));
    for (size_t n : {100, 1000}) {
      CAPTURE(n);
      auto body = std::string(n, 'a');
      auto req = make_send_request(msg(body), uniq(1), 0, opts());
      CHECK_EQ(req.sys_flag & sys_flag::compressed, sys_flag::compressed);
      CHECK_NE(req.body, body);
      auto back = decompress_body(req.body, 1000);
      REQUIRE(back);
      CHECK_EQ(*back, body);
    }
  }

  TEST_CASE("a body past what consumers inflate goes uncompressed") {
    // With a raised max_message_size, a compressed 5 MiB body would be
    // stored and then refused by every consumer.
    auto o = opts();
    o.max_message_size = 16 * 1024 * 1024;
    auto at_limit = std::string(default_max_body, 'a');
    CHECK_NE(make_send_request(msg(at_limit), uniq(1), 0, o).sys_flag
               & sys_flag::compressed,
             0);
    auto over = std::string(default_max_body + 1, 'a');
    CHECK_FALSE(check_client_message(msg(over), o));
    auto req = make_send_request(msg(over), uniq(1), 0, o);
    CHECK_EQ(req.sys_flag & sys_flag::compressed, 0);
    CHECK_EQ(req.body.size(), over.size());
    // The producer's limit is on the body before compression (RocketMQ's
    // Validators.checkMessage).
    CHECK(check_client_message(msg(over), opts()) == errc::message_illegal);
  }

  TEST_CASE("a batch: one entry per message, in order, one id each") {
    std::vector<client_message> msgs;
    for (int i = 0; i < 3; ++i) {
      auto m = msg(std::string(200, static_cast<char>('a' + i)));
      m.tags = "T" + std::to_string(i);
      m.flag = i;
      m.properties = {{"n", std::to_string(i)}};
      msgs.push_back(m);
    }
    auto req = make_batch_request(msgs, {uniq(0), uniq(1), uniq(2)}, 99,
                                  opts());
    REQUIRE(req);
    CHECK(req->batch);
    CHECK_EQ(req->topic, "TopicA");
    CHECK_EQ(req->producer_group, "PG");
    CHECK_EQ(req->born_timestamp, 99);
    CHECK_EQ(req->queue_id, -1);
    // Batches are not compressed, whatever their size.
    CHECK_EQ(req->sys_flag, 0);
    CHECK_EQ(decode_properties(req->properties).value(),
             (property_list{{"WAIT", "true"}}));
    auto entries = decode_batch(req->body);
    REQUIRE(entries);
    REQUIRE_EQ(entries->size(), 3u);
    for (int i = 0; i < 3; ++i) {
      auto& e = (*entries)[i];
      CHECK_EQ(e.flag, i);
      CHECK_EQ(e.body, msgs[i].body);
      CHECK_EQ(find_property(e.properties, "UNIQ_KEY"), uniq(i));
      CHECK_EQ(find_property(e.properties, "TAGS"), "T" + std::to_string(i));
      CHECK_EQ(find_property(e.properties, "n"), std::to_string(i));
      CHECK_EQ(find_property(e.properties, "WAIT"), "true");
    }
  }

  TEST_CASE("batch rules") {
    auto check_batch = [](const std::vector<client_message>& msgs,
                          const std::string& word,
                          errc code = errc::message_illegal) {
      std::vector<std::string> ids;
      for (size_t i = 0; i < msgs.size(); ++i)
        ids.push_back(uniq(static_cast<int>(i)));
      auto req = make_batch_request(msgs, ids, 0, opts());
      REQUIRE_FALSE(req);
      CHECK(req.error() == code);
      auto detail = error_detail(req.error());
      CAPTURE(detail);
      CHECK_NE(detail.find(word), std::string::npos);
    };
    check_batch({}, "empty");
    auto other = msg();
    other.topic = "TopicB";
    check_batch({msg(), other}, "differs");
    auto delayed = msg();
    delayed.delay_level = 1;
    check_batch({msg(), delayed}, "delay");
    auto retry = msg();
    retry.topic = "%RETRY%G";
    check_batch({retry}, "retry");
    auto timed = msg();
    timed.delay_ms = 5000;
    check_batch({msg(), timed}, "batch message 1: timed messages");
    timed = msg();
    timed.deliver_time_ms = 123456;
    check_batch({timed}, "timed messages");
    check_batch({msg(), msg("")}, "batch message 1: the message body is empty");
    auto reserved = msg();
    reserved.properties = {{"UNIQ_KEY", "x"}};
    check_batch({reserved}, "batch message 0");
    // Each body fits, the whole batch does not.
    check_batch({msg(std::string(500, 'a')), msg(std::string(500, 'b'))},
                "batch body size");
    auto req = make_batch_request({msg(), msg()}, {uniq(0)}, 0, opts());
    REQUIRE_FALSE(req);
    CHECK(req.error() == errc::invalid_parameter);
  }

  TEST_CASE("the client's view of the broker's answer") {
    send_result res;
    res.status = static_cast<uint8_t>(send_status::flush_disk_timeout);
    res.msg_id = "id1,id2";
    res.offset_msg_id = "o1,o2";
    res.queue_id = 3;
    res.queue_offset = 41;
    res.queue_offsets = {41, 42};
    auto r = to_client_result(res, message_queue{"TopicA", "broker-a", -1});
    CHECK_EQ(r.status, res.status);
    CHECK_EQ(r.msg_id, "id1,id2");
    CHECK_EQ(r.offset_msg_id, "o1,o2");
    CHECK_EQ(r.queue.topic, "TopicA");
    CHECK_EQ(r.queue.broker_name, "broker-a");
    CHECK_EQ(r.queue.queue_id, 3);
    CHECK_EQ(r.queue_offset, 41);
    REQUIRE_EQ(r.entries.size(), 2u);
    CHECK_EQ(r.entries[0].msg_id, "id1");
    CHECK_EQ(r.entries[0].offset_msg_id, "o1");
    CHECK_EQ(r.entries[1].msg_id, "id2");
    CHECK_EQ(r.entries[1].offset_msg_id, "o2");
    CHECK_EQ(r.entries[1].queue_offset, 42);
  }

  TEST_CASE("the properties bound is checked on the size the request "
            "carries, tags, keys, delay and user properties included") {
    auto m = msg();
    m.tags = "TagA";
    m.keys = "k1 k2";
    m.delay_level = 3;
    m.properties["color"] = "";
    auto size = [&] {
      return make_send_request(m, uniq(1), 0, opts()).properties.size();
    };
    // Grow one user property until the request's properties are exactly
    // at the bound: still accepted; one byte more is refused.
    m.properties["color"] = std::string(max_properties_size - size(), 'x');
    REQUIRE_EQ(size(), max_properties_size);
    CHECK_FALSE(check_client_message(m, opts()));
    m.properties["color"] += 'x';
    check_illegal(m, "exceed");
  }

  TEST_CASE("a batch of checked messages is not checked again") {
    // An empty body fails check_client_message; `checked` says the caller
    // did that already, so only the batch rules apply.
    std::vector<client_message> xs{msg(), msg("")};
    CHECK_FALSE(make_batch_request(xs, {uniq(1), uniq(2)}, 0, opts()));
    CHECK(make_batch_request(xs, {uniq(1), uniq(2)}, 0, opts(), true));
  }
}
