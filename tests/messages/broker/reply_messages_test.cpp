// The request-reply messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON; the interfaces are
// registered.
#include "messages/broker/reply.hpp"
#include "messages/client/client_reply.hpp"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {
  template <class T>
  nlohmann::json check(const T& x, const std::string& name) {
    CHECK_EQ(name_of<T>(), name);
    CHECK(roundtrip(x) == x);
    nlohmann::json j = x;
    CHECK(j.template get<T>() == x);
    return j;
  }
};

} // namespace

TEST_SUITE("messages.broker_reply") {
  TEST_CASE_FIXTURE(fixture, "a reply request and a pushed reply round-trip") {
    send_reply_message_request req;
    req.request.producer_group = "PG";
    req.request.topic = "DefaultCluster_REPLY_TOPIC";
    req.request.properties = std::string{"CORRELATION_ID\1c-1\2"};
    req.request.body = std::string("\0\1reply", 7);
    auto j = check(req, "rmq.send_reply_message_request");
    CHECK_EQ(j["request"]["topic"], "DefaultCluster_REPLY_TOPIC");
    push_reply_message push;
    push.producer_group = "PG";
    push.topic = req.request.topic;
    push.queue_id = 0;
    push.sys_flag = 1;
    push.born_timestamp = 1700000000000;
    push.properties = req.request.properties;
    push.born_host = "127.0.0.1:5000";
    push.store_host = "127.0.0.1:10911";
    push.store_timestamp = 1700000000001;
    push.body = req.request.body;
    auto k = check(push, "rmq.push_reply_message");
    CHECK_EQ(k["store_host"], "127.0.0.1:10911");
    CHECK_EQ(k["store_timestamp"], 1700000000001);
  }

  TEST_CASE_FIXTURE(fixture, "the interfaces are registered") {
    CHECK_EQ(name_of<reply_processor_actor>(), "rmq.reply_processor_actor");
    CHECK_EQ(name_of<reply_broker_actor>(), "rmq.reply_broker_actor");
    CHECK_EQ(name_of<request_holder_actor>(), "rmq.request_holder_actor");
  }
}
