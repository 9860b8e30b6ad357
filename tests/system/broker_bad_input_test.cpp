// A broker process (auto-create off, 1 KiB message limit) facing bad input
// from a remote client: each request gets RocketMQ's error, a pull at an
// illegal offset gets OFFSET_ILLEGAL with where to go on, raw garbage on
// its port is dropped, and after each a normal send still works. (The 4 GiB
// BASP length header is in broker_tls_test.cpp: a plain node cannot refuse
// it, see docs/security.md.)
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/test_seed.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicBad";

struct bad_input_fixture {
  temp_dir dir;
  broker_process broker;
  remote_client client;
  broker_actor front;
  int64_t sends = 0; // acknowledged to queue 0

  bad_input_fixture() {
    broker_launch how;
    how.store_dir = dir.path() + "/store";
    how.auto_create_topic = false;
    how.extra = {"--max-message-size=1024",
                 "--max-transfer-count-on-message-in-memory=2"};
    broker = start_broker_node(how);
    front = connect_broker(client, broker.port);
    create_topic(client, front, topic, 4);
    check_serves();
  }

  // A normal send to queue 0 is stored at the next offset.
  void check_serves() {
    auto sent = send_plain(client, front, topic, "fine", 0);
    REQUIRE_MESSAGE(sent, describe(sent.error()));
    CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(sent->queue_offset, sends++);
    CHECK_EQ(broker.proc->wait(0ms), -1); // still running
  }

  // A send refused with `code`; then the broker serves on.
  void check_send_refused(const std::string& to, const std::string& body,
                          int32_t queue_id, errc code) {
    CAPTURE(to);
    CAPTURE(queue_id);
    auto sent = send_plain(client, front, to, body, queue_id);
    REQUIRE_FALSE(sent);
    CHECK_MESSAGE(sent.error() == code, describe(sent.error()));
    check_serves();
  }

  caf::expected<pull_message_result> pull(const std::string& from,
                                          int32_t queue_id, int64_t offset,
                                          const std::string& group = "G") {
    pull_message_request req;
    req.consumer_group = group;
    req.topic = from;
    req.queue_id = queue_id;
    req.queue_offset = offset;
    return client.ask<pull_message_result>(front, std::move(req));
  }
};

} // namespace

TEST_SUITE("system.broker.bad_input") {
  TEST_CASE_FIXTURE(bad_input_fixture, "bad sends get RocketMQ's errors and "
                                       "the broker keeps serving") {
    // Auto-create off: an unknown topic is not created from TBW102.
    check_send_refused("NoSuchTopic", "x", -1, errc::topic_not_exist);
    check_send_refused("NoSuchTopic", "x", 0, errc::topic_not_exist);
    // Queue ids from the topic's 4 queues only.
    check_send_refused(topic, "x", 4, errc::invalid_parameter);
    check_send_refused(topic, "x", 1'000'000, errc::invalid_parameter);
    // Bodies: 1..--max-message-size bytes.
    check_send_refused(topic, std::string(1025, 'b'), 0, errc::message_illegal);
    check_send_refused(topic, "", 0, errc::message_illegal);
    auto largest = send_plain(client, front, topic, std::string(1024, 'b'), 1);
    CHECK_MESSAGE(largest, describe(largest.error()));
    // Invalid topic names and topics clients may not send to.
    check_send_refused("", "x", -1, errc::invalid_parameter);
    check_send_refused("bad topic", "x", -1, errc::invalid_parameter);
    check_send_refused("bad\ntopic", "x", -1, errc::invalid_parameter);
    check_send_refused(std::string(128, 't'), "x", -1, errc::invalid_parameter);
    check_send_refused("SCHEDULE_TOPIC_XXXX", "x", -1, errc::no_permission);
    // Admin requests with invalid names.
    update_topic_request bad_topic;
    bad_topic.config.topic_name = "bad/topic";
    auto made = client.ask<data_version>(front, bad_topic);
    REQUIRE_FALSE(made);
    CHECK_MESSAGE(made.error() == errc::invalid_parameter,
                  describe(made.error()));
    update_sub_group_request bad_group;
    bad_group.config.group_name = "bad group";
    auto group = client.ask<data_version>(front, bad_group);
    REQUIRE_FALSE(group);
    CHECK_MESSAGE(group.error() == errc::invalid_parameter,
                  describe(group.error()));
    // Consumers with invalid group names: no subscription group config.
    client_heartbeat hb;
    hb.client_id = "127.0.0.1@test";
    consumer_data bad;
    bad.group_name = "bad group";
    hb.consumers.push_back(bad);
    auto beat = client.ask<caf::ok_atom>(front, hb);
    REQUIRE_FALSE(beat);
    CHECK_MESSAGE(beat.error() == errc::invalid_parameter,
                  describe(beat.error()));
    auto pulled = pull(topic, 0, 0, "bad group");
    REQUIRE_FALSE(pulled);
    CHECK_MESSAGE(pulled.error() == errc::subscription_group_not_exist,
                  describe(pulled.error()));
    auto commit_refused = [&](const std::string& g, const std::string& t) {
      auto ok = client.ask<caf::ok_atom>(front,
                                         update_offset_request{g, t, 0, 1});
      REQUIRE_FALSE(ok);
      return ok.error();
    };
    CHECK(commit_refused("bad group", topic)
          == errc::subscription_group_not_exist);
    CHECK(commit_refused("G", "bad topic") == errc::topic_not_exist);
    check_serves();
  }

  TEST_CASE_FIXTURE(bad_input_fixture, "pulls at illegal offsets and of "
                                       "unknown queues get a clear answer") {
    check_serves();
    check_serves(); // queue 0 holds offsets 0..2
    REQUIRE(wait_readable(client, front, topic, 0, 3));
    auto status = [](const pull_message_result& res) {
      return static_cast<pull_status>(res.status);
    };
    // Far past the end: OFFSET_ILLEGAL, and the next offset to pull from is
    // the queue's end (RocketMQ: OFFSET_OVERFLOW_BADLY on a master).
    auto past = pull(topic, 0, 100);
    REQUIRE_MESSAGE(past, describe(past.error()));
    CHECK_EQ(status(*past), pull_status::offset_illegal);
    CHECK_EQ(past->min_offset, 0);
    CHECK_EQ(past->max_offset, 3);
    CHECK_EQ(past->next_begin_offset, 3);
    CHECK_EQ(past->message_count, 0);
    // Before the start: OFFSET_ILLEGAL, go on from the queue's start.
    auto before = pull(topic, 0, -5);
    REQUIRE_MESSAGE(before, describe(before.error()));
    CHECK_EQ(status(*before), pull_status::offset_illegal);
    CHECK_EQ(before->next_begin_offset, 0);
    // The end itself is no error: nothing new yet.
    auto at_end = pull(topic, 0, 3);
    REQUIRE_MESSAGE(at_end, describe(at_end.error()));
    CHECK_EQ(status(*at_end), pull_status::no_new_msg);
    // An empty queue asked past 0.
    auto empty = pull(topic, 2, 7);
    REQUIRE_MESSAGE(empty, describe(empty.error()));
    CHECK_EQ(status(*empty), pull_status::offset_illegal);
    CHECK_EQ(empty->next_begin_offset, 0);
    // Queue ids out of range, unknown topics, bad subscriptions: errors.
    for (int32_t q : {4, -1}) {
      auto bad = pull(topic, q, 0);
      REQUIRE_FALSE(bad);
      CHECK_MESSAGE(bad.error() == errc::invalid_parameter,
                    describe(bad.error()));
    }
    auto unknown = pull("NoSuchTopic", 0, 0);
    REQUIRE_FALSE(unknown);
    CHECK_MESSAGE(unknown.error() == errc::topic_not_exist,
                  describe(unknown.error()));
    pull_message_request bad_sub;
    bad_sub.consumer_group = "G";
    bad_sub.topic = topic;
    bad_sub.subscription = "tagA ||";
    auto parsed = client.ask<pull_message_result>(front, bad_sub);
    REQUIRE_FALSE(parsed);
    CHECK_MESSAGE(parsed.error() == errc::subscription_parse_failed,
                  describe(parsed.error()));
    // The broker's --max-transfer-count-on-message-in-memory=2 caps a
    // pull that asks for more.
    auto capped = pull(topic, 0, 0);
    REQUIRE_MESSAGE(capped, describe(capped.error()));
    CHECK_EQ(capped->message_count, 2);
    CHECK_EQ(capped->next_begin_offset, 2);
    // A good pull still reads everything.
    CHECK_EQ(pull_all(client, front, topic, 0),
             std::vector<std::string>(3, "fine"));
    check_serves();
  }

  TEST_CASE_FIXTURE(bad_input_fixture, "raw garbage on the broker's port is "
                                       "dropped and the broker keeps serving") {
    auto before = rss_kib(broker.proc->pid());
    REQUIRE(before > 0);
    auto seed = test_seed();
    for (auto& bytes : garbage_payloads(seed)) {
      int fd = raw_connect(broker.port);
      REQUIRE(fd >= 0);
      raw_send(fd, bytes);
      close(fd);
      check_serves();
    }
    // A garbage connection left open while a real client works.
    int idle = raw_connect(broker.port);
    REQUIRE(idle >= 0);
    raw_send(idle, random_bytes(10, seed + 2));
    check_serves();
    remote_client another;
    auto front2 = connect_broker(another, broker.port);
    auto sent = send_plain(another, front2, topic, "from another client", 1);
    CHECK_MESSAGE(sent, describe(sent.error()));
    close(idle);
    check_serves();
    auto after = rss_kib(broker.proc->pid());
    MESSAGE("VmRSS before " << before << " KiB, after " << after << " KiB");
    CHECK(after - before < 16 * 1024);
  }

  TEST_CASE("a broker with an out-of-range pull cap does not start") {
    temp_dir dir;
    for (std::string flag : {"--max-transfer-count-on-message-in-memory=0",
                             "--max-transfer-bytes-on-message-in-memory=-1"}) {
      CAPTURE(flag);
      child_process node{{bin_dir() + "/rmq-node", "--role=broker", "--port=0",
                          "--remoting-port=0", "--store-dir=" + dir.path(),
                          flag},
                         true};
      CHECK_EQ(node.wait(), 2);
    }
  }
} // TEST_SUITE
