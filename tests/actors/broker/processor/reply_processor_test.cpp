// The reply processor on a whole broker node: the reply topic exists from
// the start, a reply is stored in it and pushed to the requester's channel
// (found by REPLY_TO_CLIENT), a requester that is not online is a
// system_error naming it and nothing is stored, a reply without
// REPLY_TO_CLIENT is refused, and with storeReplyMessageEnable off the
// reply is pushed without being stored.
#include "actors/broker/processor/reply_processor.hpp"

#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "tests/actors/broker/broker_node_fixture.hpp"

using namespace rmq;

namespace {

const std::string reply_topic_name = "DefaultCluster_REPLY_TOPIC";

using push_log = std::shared_ptr<std::vector<push_reply_message>>;

// A requester's channel: relays its heartbeat through the front (so the
// client manager knows it by client id) and records the pushed replies.
caf::behavior fake_channel(caf::event_based_actor* self, broker_actor front,
                           push_log got) {
  return {
    [=](const client_heartbeat& x) {
      auto rp = self->make_response_promise();
      self->request(front, caf::infinite, x)
        .then([rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
              [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [=](const push_reply_message& x) { got->push_back(x); },
  };
}

struct fixture : test::broker_node_fixture {
  push_log pushed = std::make_shared<std::vector<push_reply_message>>();

  caf::actor online(const std::string& client_id) {
    auto ch = spawn(fake_channel, node.frontend, pushed);
    client_heartbeat hb;
    hb.client_id = client_id;
    hb.producer_groups = {"REQUESTERS"};
    ask<caf::ok_atom>(ch, hb);
    return ch;
  }

  static send_reply_message_request reply(const std::string& to,
                                          const std::string& body) {
    send_reply_message_request x;
    auto& req = x.request;
    req.producer_group = "REPLIERS";
    req.topic = reply_topic_name;
    req.born_ip = 0x7F000001;
    req.born_port = 5555;
    req.body = body;
    append_property(req.properties, property_message_type, reply_message_flag);
    append_property(req.properties, property_correlation_id, "c-1");
    if (!to.empty())
      append_property(req.properties, property_reply_to_client, to);
    append_property(req.properties, property_message_ttl, "3000");
    return x;
  }

  int64_t stored_replies() {
    return ask<queue_offsets>(node.frontend,
                              get_offset_request{reply_topic_name, 0})
      .max_offset;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(
      ask<std::string>(node.reply, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("broker.reply_processor") {
  TEST_CASE_FIXTURE(fixture, "the reply topic is created at start with one "
                             "read and write queue") {
    auto tc = ask<topic_config>(node.topics, caf::get_atom::value,
                                reply_topic_name);
    CHECK_EQ(tc.read_queue_nums, 1);
    CHECK_EQ(tc.write_queue_nums, 1);
    CHECK((tc.perm & perm::read_write) == perm::read_write);
  }

  TEST_CASE_FIXTURE(fixture, "the node's dump has the reply processor") {
    auto js = nlohmann::json::parse(
      ask<std::string>(node.frontend, dump_atom::value));
    int found = 0;
    for (auto& part : js["actors"])
      if (part.value("actor", std::string{}) == "reply_processor")
        ++found;
    CHECK_EQ(found, 1);
  }

  TEST_CASE_FIXTURE(fixture, "a reply is stored and pushed to the requester's "
                             "channel") {
    online("10.0.0.9@requester");
    auto res = ask<send_result>(node.frontend,
                                reply("10.0.0.9@requester", "the answer"));
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(res.queue_id, 0);
    CHECK_EQ(res.queue_offset, 0);
    CHECK_FALSE(res.msg_id.empty());
    CHECK_EQ(stored_replies(), 1);
    REQUIRE_EQ(pushed->size(), 1u);
    auto& p = pushed->front();
    CHECK_EQ(p.topic, reply_topic_name);
    CHECK_EQ(p.body, "the answer");
    CHECK_EQ(p.producer_group, "REPLIERS");
    CHECK_EQ(p.born_host, "127.0.0.1:5555");
    CHECK_EQ(p.store_host, "127.0.0.1:10921");
    CHECK_EQ(find_property(p.properties, property_correlation_id), "c-1");
    CHECK_EQ(find_property(p.properties, property_push_reply_time),
             std::to_string(p.store_timestamp));
    auto msg = to_received_message(p);
    REQUIRE(msg);
    CHECK_EQ(msg->body, "the answer");
    CHECK_EQ(msg->system_properties[property_reply_to_client],
             "10.0.0.9@requester");
    auto d = dump();
    CHECK_EQ(d["pushed"], 1);
    CHECK_EQ(d["stored"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a requester that is not online is a "
                             "system_error naming it, and nothing is "
                             "stored") {
    online("10.0.0.9@requester");
    auto err = ask_error<send_result>(node.frontend,
                                      reply("10.0.0.9@gone", "late"));
    CHECK(err == errc::system_error);
    CHECK_NE(error_detail(err).find("10.0.0.9@gone"), std::string::npos);
    CHECK(pushed->empty());
    CHECK_EQ(stored_replies(), 0);
    CHECK_EQ(dump()["not_online"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a reply without REPLY_TO_CLIENT is refused") {
    auto err = ask_error<send_result>(node.frontend, reply("", "x"));
    CHECK(err == errc::system_error);
    CHECK_NE(error_detail(err).find("REPLY_TO_CLIENT"), std::string::npos);
    CHECK_EQ(stored_replies(), 0);
  }

  TEST_CASE_FIXTURE(fixture, "the send processor's checks apply to replies") {
    online("10.0.0.9@requester");
    auto err = ask_error<send_result>(node.frontend,
                                      reply("10.0.0.9@requester", ""));
    CHECK(err == errc::message_illegal);
    CHECK(pushed->empty());
  }

  TEST_CASE_FIXTURE(fixture, "with storeReplyMessageEnable off a reply is "
                             "pushed, not stored") {
    stop();
    auto opts = options_for(dir.path());
    opts.store_reply_message_enable = false;
    auto started = spawn_broker(sys, opts);
    REQUIRE(started);
    node = std::move(*started);
    track(node.supervisor);
    for (auto& hdl : node.actors)
      track(hdl);
    sched.run();
    online("10.0.0.9@requester");
    auto res = ask<send_result>(node.frontend,
                                reply("10.0.0.9@requester", "quick"));
    CHECK_EQ(res.msg_id, "0");
    CHECK_EQ(pushed->size(), 1u);
    CHECK_EQ(stored_replies(), 0);
  }
}
