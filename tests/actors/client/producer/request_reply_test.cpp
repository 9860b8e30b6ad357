// Request-reply on the client side, on the virtual clock: the producer's
// request carries CORRELATION_ID, REPLY_TO_CLIENT and TTL and heartbeats
// once for a new topic; a pushed reply completes the request it belongs
// to; a request without reply ends with request_timeout at its deadline
// and a later reply is dropped; many requests in flight are matched by
// correlation id; the heartbeat sender forwards pushed replies to the
// request holder; a reply message goes as SEND_REPLY_MESSAGE; a failed
// send ends its request with the send's error; create_reply_message
// refuses what is not a request.
#include "actors/client/producer/request_holder.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/client/instance/client_heartbeat_service.hpp"
#include "actors/client/instance/latency_fault_service.hpp"
#include "actors/client/producer/send_loop.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace std::chrono_literals;
using test::fake_broker;

namespace {

std::string prop(const send_message_request& req, const char* key) {
  return std::string{find_property(req.properties, key)};
}

struct fixture : test::deterministic_fixture, test::instance_books {
  std::shared_ptr<fake_broker> script = std::make_shared<fake_broker>();
  client_instance inst;
  producer_config pcfg;
  producer_actor producer;

  fixture() {
    pcfg.group = "PG";
    pcfg.wall_clock = [] { return int64_t{1'700'000'000'000}; };
    pcfg.start_index = [] { return uint32_t{0}; };
    dir->brokers["a:10911"] = spawn(test::play_broker, script);
    route("TopicA");
    route(reply_topic("DefaultCluster"));
    inst.client_id = "10.0.0.9@requester";
    spawn_instance(inst, [this](auto&&... xs) {
      return spawn(std::forward<decltype(xs)>(xs)...);
    });
    inst.requests = spawn(request_holder);
    producer = spawn(send_loop, pcfg, inst);
    sched.run();
  }

  void route(const std::string& topic) {
    routes->routes[topic] = test::route_over({"broker-a"}, 1);
  }

  static client_message msg(std::string body = "question") {
    client_message m;
    m.topic = "TopicA";
    m.body = std::move(body);
    return m;
  }

  /// Starts a request without waiting for its answer.
  auto start_request(client_message m, caf::timespan timeout) {
    auto rh = self->request(producer, caf::infinite, request_atom::value,
                            std::move(m), timeout);
    sched.run();
    return rh;
  }

  /// What the broker pushes for a reply to `req` (as the reply processor
  /// does: the reply's properties carry the request's correlation id).
  static push_reply_message push_for(const send_message_request& req,
                                     std::string body) {
    push_reply_message p;
    p.topic = reply_topic("DefaultCluster");
    p.producer_group = "REPLIERS";
    p.born_host = "10.0.0.7:4000";
    p.store_host = "10.0.0.1:10911";
    p.store_timestamp = 1'700'000'000'500;
    append_property(p.properties, property_message_type, reply_message_flag);
    append_property(p.properties, property_correlation_id,
                    prop(req, property_correlation_id));
    append_property(p.properties, property_reply_to_client,
                    prop(req, property_reply_to_client));
    p.body = std::move(body);
    return p;
  }

  nlohmann::json holder_dump() {
    return nlohmann::json::parse(
      ask<std::string>(inst.requests, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("client.request_reply") {
  TEST_CASE_FIXTURE(fixture, "a pushed reply completes its request") {
    auto rh = start_request(msg(), 3s);
    REQUIRE_EQ(script->sends.size(), 1u);
    auto& req = script->sends[0];
    CHECK_EQ(req.topic, "TopicA");
    CHECK_EQ(prop(req, property_reply_to_client), "10.0.0.9@requester");
    CHECK_EQ(prop(req, property_message_ttl), "3000");
    CHECK_EQ(prop(req, property_correlation_id).size(), 32u);
    // The first request to a topic heartbeats, so the broker knows us.
    CHECK_EQ(hb->rounds, 1);
    CHECK(self->mailbox().empty());
    self->send(inst.requests, push_for(req, "answer"));
    sched.run();
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive(
      [&](const received_message& reply) {
        CHECK_EQ(reply.body, "answer");
        CHECK_EQ(reply.topic, "DefaultCluster_REPLY_TOPIC");
        CHECK_EQ(reply.born_host, "10.0.0.7:4000");
        CHECK_EQ(reply.system_properties.at(property_correlation_id),
                 prop(req, property_correlation_id));
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    // A known topic needs no heartbeat round.
    start_request(msg(), 3s);
    CHECK_EQ(hb->rounds, 1);
    auto d = holder_dump();
    CHECK_EQ(d["replied"], 1);
    CHECK_EQ(d["waiting"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a request without reply times out at its "
                             "deadline and a late reply is dropped") {
    auto rh = start_request(msg(), 2s);
    REQUIRE_EQ(script->sends.size(), 1u);
    auto req = script->sends[0];
    sched.advance_time(1999ms);
    sched.run();
    CHECK(self->mailbox().empty());
    sched.advance_time(1ms);
    sched.run();
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([&](const received_message&) { FAIL("expected a timeout"); },
               [&](const caf::error& err) {
                 CHECK(err == errc::request_timeout);
                 CHECK_NE(
                   error_detail(err).find(prop(req, property_correlation_id)),
                   std::string::npos);
               });
    self->send(inst.requests, push_for(req, "too late"));
    sched.run();
    CHECK(self->mailbox().empty());
    auto d = holder_dump();
    CHECK_EQ(d["timed_out"], 1);
    CHECK_EQ(d["dropped"], 1);
    CHECK_EQ(d["waiting"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "requests with different timeouts end each at "
                             "its own deadline on one timer") {
    auto slow = start_request(msg("slow"), 5s);
    auto fast = start_request(msg("fast"), 1s);
    sched.advance_time(1s);
    sched.run();
    fast.receive([&](const received_message&) { FAIL("expected a timeout"); },
                 [&](const caf::error& err) {
                   CHECK(err == errc::request_timeout);
                 });
    CHECK(self->mailbox().empty());
    CHECK_EQ(holder_dump()["waiting"], 1);
    sched.advance_time(4s);
    sched.run();
    slow.receive([&](const received_message&) { FAIL("expected a timeout"); },
                 [&](const caf::error& err) {
                   CHECK(err == errc::request_timeout);
                 });
  }

  TEST_CASE_FIXTURE(fixture, "many requests in flight are matched by "
                             "correlation id") {
    constexpr int n = 200;
    std::vector<decltype(start_request(msg(), 1s))> handles;
    for (int i = 0; i < n; ++i)
      handles.push_back(start_request(msg("q" + std::to_string(i)), 10s));
    REQUIRE_EQ(script->sends.size(), static_cast<size_t>(n));
    // Answered in a random order, each with its request's body.
    auto reqs = script->sends;
    std::mt19937 rng{test::test_seed()};
    std::shuffle(reqs.begin(), reqs.end(), rng);
    for (auto& req : reqs)
      self->send(inst.requests, push_for(req, "a-" + req.body));
    sched.run();
    for (int i = 0; i < n; ++i)
      handles[i].receive(
        [&](const received_message& reply) {
          CHECK_EQ(reply.body, "a-q" + std::to_string(i));
        },
        [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(holder_dump()["replied"], n);
  }

  TEST_CASE_FIXTURE(fixture, "the heartbeat sender forwards pushed replies to "
                             "the request holder") {
    client_heartbeat_config hc;
    hc.client_id = inst.client_id;
    hc.routes = inst.routes;
    hc.directory = inst.directory;
    hc.interval = caf::timespan{0};
    hc.requests = inst.requests;
    auto channel = spawn(client_heartbeat_service, hc);
    sched.run();
    auto rh = self->request(inst.requests, caf::infinite, request_atom::value,
                            std::string{"corr-1"}, caf::timespan{1s});
    sched.run();
    send_message_request req;
    append_property(req.properties, property_correlation_id, "corr-1");
    // As the broker does: one-way, to the channel.
    caf::anon_send(channel, push_for(req, "via channel"));
    sched.run();
    rh.receive(
      [&](const received_message& reply) {
        CHECK_EQ(reply.body, "via channel");
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    auto d = nlohmann::json::parse(ask<std::string>(channel, dump_atom::value));
    CHECK_EQ(d["forwarded_replies"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a failed send ends its request with the send's "
                             "error") {
    script->how = fake_broker::mode::fail;
    script->error = make_error(errc::message_illegal, "refused");
    auto rh = start_request(msg(), 3s);
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([&](const received_message&) { FAIL("expected an error"); },
               [&](const caf::error& err) {
                 CHECK(err == errc::message_illegal);
               });
    auto d = holder_dump();
    CHECK_EQ(d["failed"], 1);
    CHECK_EQ(d["waiting"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a reply made by create_reply_message goes as "
                             "SEND_REPLY_MESSAGE") {
    received_message request;
    request.topic = "TopicA";
    request.msg_id = "ID1";
    request.system_properties[property_cluster] = "DefaultCluster";
    request.system_properties[property_correlation_id] = "corr-9";
    request.system_properties[property_reply_to_client] = "10.0.0.8@other";
    request.system_properties[property_message_ttl] = "3000";
    auto reply = create_reply_message(request, "the answer");
    REQUIRE(reply);
    CHECK_EQ(reply->topic, "DefaultCluster_REPLY_TOPIC");
    CHECK(is_reply_message(*reply));
    ask<client_send_result>(producer, send_atom::value, *reply);
    CHECK(script->sends.empty());
    REQUIRE_EQ(script->replies.size(), 1u);
    auto& sent = script->replies[0];
    CHECK_EQ(sent.topic, "DefaultCluster_REPLY_TOPIC");
    CHECK_EQ(sent.body, "the answer");
    CHECK_EQ(prop(sent, property_correlation_id), "corr-9");
    CHECK_EQ(prop(sent, property_reply_to_client), "10.0.0.8@other");
    CHECK_EQ(prop(sent, property_message_ttl), "3000");
    CHECK_EQ(prop(sent, property_message_type), "reply");
  }

  TEST_CASE("create_reply_message refuses a message that is not a request") {
    received_message plain;
    plain.topic = "TopicA";
    plain.msg_id = "ID2";
    plain.system_properties[property_cluster] = "DefaultCluster";
    auto reply = create_reply_message(plain, "x");
    REQUIRE_FALSE(reply);
    CHECK(reply.error() == errc::message_illegal);
    auto text = error_detail(reply.error());
    CHECK_NE(text.find("not a request"), std::string::npos);
    CHECK_NE(text.find("CORRELATION_ID"), std::string::npos);
    CHECK_NE(text.find("REPLY_TO_CLIENT"), std::string::npos);
    CHECK_NE(text.find("ID2"), std::string::npos);
  }
}
