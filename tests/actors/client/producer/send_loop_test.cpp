// The producer's send loop on the virtual clock, against fake brokers
// (tests/support/fake_broker.hpp) and a fake client instance
// (tests/actors/client/fake_client_instance.hpp) with the real
// latency-fault service: retries over brokers, fault avoidance, time
// budgets, auto-batching, back-pressure, validation and compression.
#include "actors/client/producer/send_loop.hpp"

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"
#include "caf/exit_reason.hpp"
#include "caf/sec.hpp"
#include "caf/send.hpp"

#include "actors/client/instance/latency_fault_service.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/body_compression.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"

using namespace rmq;
using namespace std::chrono_literals;
using test::fake_broker;

namespace {

// RocketMQ MessageSysFlag.COMPRESSED_FLAG.
constexpr int32_t compressed_flag = 0x1;

struct fixture : test::deterministic_fixture, test::instance_books {
  std::map<std::string, std::shared_ptr<fake_broker>> brokers;
  std::map<std::string, test::fake_broker_actor> broker_handles;
  client_instance inst;
  producer_config pcfg;
  producer_actor producer;

  fixture() {
    pcfg.group = "PG";
    pcfg.wall_clock = [] { return int64_t{1'700'000'000'000}; };
    pcfg.start_index = [] { return uint32_t{0}; };
  }

  /// A fake broker "broker-x" at "x:10911".
  fake_broker& add_broker(const std::string& x) {
    auto script = std::make_shared<fake_broker>();
    brokers[x] = script;
    auto hdl = spawn(test::play_broker, script);
    broker_handles[x] = hdl;
    dir->brokers[x + ":10911"] = hdl;
    return *script;
  }

  /// A fake broker "broker-x" that fails every send with `err`.
  fake_broker& add_failing_broker(const std::string& x, caf::error err) {
    auto& s = add_broker(x);
    s.how = fake_broker::mode::fail;
    s.error = std::move(err);
    return s;
  }

  /// Lets broker x answer what it holds (at the next run).
  void release(const std::string& x) {
    self->send(broker_handles.at(x), test::release_atom::value);
  }

  /// Lets broker x answer what it holds, and runs until all is quiet.
  void answer_held(const std::string& x) {
    release(x);
    sched.run();
  }

  fake_broker& broker(const std::string& x) {
    return *brokers.at(x);
  }

  /// Routes `topic` to the given brokers, `queues` queues each.
  void route(const std::string& topic, const std::vector<std::string>& xs,
             int32_t queues = 1) {
    std::vector<std::string> names;
    for (auto& x : xs)
      names.push_back("broker-" + x);
    routes->routes[topic] = test::route_over(names, queues);
  }

  /// Broker a fails every send with `err`, broker b answers; TopicA has a
  /// queue on each. Starts the send loop.
  void start_failing_a_then_b(caf::error err) {
    add_failing_broker("a", std::move(err));
    add_broker("b");
    route("TopicA", {"a", "b"});
    start();
  }

  void start() {
    inst.client_id = "10.0.0.9@test";
    spawn_instance(inst, [this](auto&&... xs) {
      return spawn(std::forward<decltype(xs)>(xs)...);
    });
    producer = spawn(send_loop, pcfg, inst);
  }

  static client_message msg(std::string body = "hello",
                            std::string topic = "TopicA") {
    client_message m;
    m.topic = std::move(topic);
    m.body = std::move(body);
    return m;
  }

  template <class... Ts>
  client_send_result send_ok(Ts&&... xs) {
    return ask<client_send_result>(producer, send_atom::value,
                                   std::forward<Ts>(xs)...);
  }

  template <class... Ts>
  caf::error send_error(Ts&&... xs) {
    return ask_error<client_send_result>(producer, send_atom::value,
                                         std::forward<Ts>(xs)...);
  }

  /// Starts a request without waiting for its answer.
  template <class... Ts>
  auto pending(Ts&&... xs) {
    auto rh = self->request(producer, caf::infinite, std::forward<Ts>(xs)...);
    sched.run();
    return rh;
  }

  /// Broker a never answers, broker b does; sends have 3 s, an attempt
  /// 1 s. Starts the send loop and a send, which goes to broker a.
  auto send_to_silent_a_then_b() {
    add_broker("a").how = fake_broker::mode::silent;
    add_broker("b");
    route("TopicA", {"a", "b"});
    pcfg.send_timeout = 3s;
    pcfg.attempt_timeout = 1s;
    start();
    auto rh = pending(send_atom::value, msg());
    CHECK(broker("b").sends.empty());
    return rh;
  }

  /// Receives the answer to a pending send; an error fails the test.
  template <class Handle>
  client_send_result result_of(Handle& rh) {
    client_send_result out;
    rh.receive([&](client_send_result& res) { out = std::move(res); },
               [&](const caf::error& err) { FAIL(sys.render(err)); });
    return out;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(producer, dump_atom::value));
  }

  size_t received_total() {
    size_t n = 0;
    for (auto& [x, s] : brokers)
      n += s->sends.size();
    return n;
  }
};

caf::error busy() {
  return make_error(errc::system_busy, "busy");
}

} // namespace

TEST_SUITE("client.send_loop") {
  TEST_CASE_FIXTURE(fixture, "a send goes to a broker of the topic's route "
                             "and answers its queue and ids") {
    add_broker("a");
    route("TopicA", {"a"}, 4);
    start();
    CHECK_EQ(hb->producers, std::vector<std::string>{"PG"});
    auto res = send_ok(msg());
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    auto& req = broker("a").sends[0];
    CHECK_EQ(req.topic, "TopicA");
    CHECK_EQ(req.producer_group, "PG");
    CHECK_EQ(req.body, "hello");
    CHECK_EQ(req.born_timestamp, 1'700'000'000'000);
    auto keys = test::uniq_keys_of(req);
    REQUIRE_EQ(keys.size(), 1u);
    CHECK_EQ(keys[0].size(), 32u);
    CHECK_EQ(res.msg_id, keys[0]);
    CHECK_EQ(res.queue.broker_name, "broker-a");
    CHECK_EQ(res.queue.topic, "TopicA");
    CHECK_EQ(res.queue.queue_id, req.queue_id);
    CHECK_EQ(dir->connects, std::vector<std::string>{"a:10911"});
    // The handle is kept: the next send asks the directory nothing.
    send_ok(msg());
    CHECK_EQ(dir->connects.size(), 1u);
    CHECK_EQ(dump()["counters"]["sent"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a failing broker makes the retry go to the "
                             "other one, with the same UNIQ_KEY") {
    start_failing_a_then_b(busy());
    auto res = send_ok(msg());
    CHECK_EQ(res.queue.broker_name, "broker-b");
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    REQUIRE_EQ(broker("b").sends.size(), 1u);
    CHECK_EQ(test::uniq_keys_of(broker("a").sends[0]),
             test::uniq_keys_of(broker("b").sends[0]));
    CHECK_EQ(dump()["counters"]["retried"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a failed broker stays avoided for its fault "
                             "duration and is used again after it") {
    start_failing_a_then_b(busy());
    send_ok(msg());
    broker("a").how = fake_broker::mode::answer;
    // An isolated broker is out for 10 s (RocketMQ's isolation latency).
    for (int i = 0; i < 4; ++i)
      CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-b");
    CHECK_EQ(broker("a").sends.size(), 1u);
    advance_time(9s, 1s);
    CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-b");
    advance_time(2s, 1s);
    std::set<std::string> used;
    for (int i = 0; i < 2; ++i)
      used.insert(send_ok(msg()).queue.broker_name);
    CHECK(used.count("broker-a") == 1);
    CHECK_EQ(broker("a").sends.size(), 2u);
  }

  TEST_CASE_FIXTURE(fixture, "three single-queue brokers and two retries "
                             "try all three, then report them all") {
    for (auto x : {"a", "b", "c"})
      add_failing_broker(x, busy());
    route("TopicA", {"a", "b", "c"});
    start();
    auto err = send_error(msg());
    CHECK(err == errc::system_busy);
    CHECK_EQ(error_detail(err),
             "Send [3] times, still failed, cost [0]ms, Topic: TopicA, "
             "BrokersSent: [broker-a, broker-b, broker-c]");
    for (auto x : {"a", "b", "c"})
      CHECK_EQ(broker(x).sends.size(), 1u);
    CHECK_EQ(dump()["counters"]["failed"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a status other than SEND_OK is a result, "
                             "retried elsewhere only when configured") {
    add_broker("a").status
      = static_cast<uint8_t>(send_status::flush_disk_timeout);
    add_failing_broker("b", busy());
    route("TopicA", {"a", "b"});
    start();
    auto res = send_ok(msg());
    CHECK_EQ(res.status, broker("a").status);
    CHECK(broker("b").sends.empty());
  }

  TEST_CASE_FIXTURE(fixture, "with retry_another_broker_when_not_store_ok, "
                             "the stored result answers when retries fail") {
    add_broker("a").status
      = static_cast<uint8_t>(send_status::flush_disk_timeout);
    add_failing_broker("b", busy());
    route("TopicA", {"a", "b"});
    pcfg.retry_another_broker_when_not_store_ok = true;
    pcfg.retries = 1;
    start();
    auto res = send_ok(msg());
    CHECK_EQ(res.status, broker("a").status);
    CHECK_EQ(res.queue.broker_name, "broker-a");
    CHECK_EQ(broker("b").sends.size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "an error that is not retryable returns at "
                             "once") {
    start_failing_a_then_b(make_error(errc::message_illegal, "too big"));
    auto err = send_error(msg());
    CHECK(err == errc::message_illegal);
    CHECK_EQ(error_detail(err), "too big");
    CHECK(broker("b").sends.empty());
  }

  TEST_CASE_FIXTURE(fixture, "a silent broker's attempt ends at the cap, the "
                             "retry goes elsewhere") {
    auto rh = send_to_silent_a_then_b();
    advance_time(900ms, 100ms);
    CHECK(broker("b").sends.empty());
    CHECK(self->mailbox().empty());
    advance_time(100ms, 100ms);
    REQUIRE_EQ(broker("b").sends.size(), 1u);
    REQUIRE_FALSE(self->mailbox().empty());
    CHECK_EQ(result_of(rh).queue.broker_name, "broker-b");
    // The silent broker did not answer: kept out, and known unreachable.
    auto d = dump();
    auto found = false;
    for (auto& item : d["faults"]["items"])
      if (item["broker_name"] == "broker-a") {
        found = true;
        CHECK_EQ(item["reachable"], false);
        CHECK_GE(item["available_at_ns"].get<int64_t>(), 10'000'000'000);
      }
    CHECK(found);
  }

  TEST_CASE_FIXTURE(fixture, "a lost connection fails its attempts at once: "
                             "the retry goes elsewhere before the cap") {
    auto rh = send_to_silent_a_then_b();
    advance_time(100ms, 100ms);
    CHECK(broker("b").sends.empty());
    // The peer directory reports the connection to broker-a closed.
    caf::anon_send(producer, peer_lost_atom::value, std::string{"a:10911"});
    sched.run();
    REQUIRE_EQ(broker("b").sends.size(), 1u);
    REQUIRE_FALSE(self->mailbox().empty());
    CHECK_EQ(result_of(rh).queue.broker_name, "broker-b");
  }

  TEST_CASE_FIXTURE(fixture, "silent brokers: each attempt within its cap, "
                             "the whole send ends by send_timeout") {
    for (auto x : {"a", "b", "c"})
      add_broker(x).how = fake_broker::mode::silent;
    route("TopicA", {"a", "b", "c"});
    pcfg.send_timeout = 3s;
    pcfg.attempt_timeout = 2s;
    start();
    auto rh = pending(send_atom::value, msg());
    advance_time(1900ms, 100ms);
    CHECK(broker("b").sends.empty());
    advance_time(100ms, 100ms);
    // The second attempt has only 1 s left, and no third one starts.
    CHECK_EQ(broker("b").sends.size(), 1u);
    advance_time(900ms, 100ms);
    CHECK(self->mailbox().empty());
    advance_time(100ms, 100ms);
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([](const client_send_result&) { FAIL("expected an error"); },
               [](const caf::error& err) {
                 CHECK(err == caf::sec::request_timeout);
               });
    CHECK(broker("c").sends.empty());
  }

  TEST_CASE_FIXTURE(fixture, "auto-batching packs concurrent async sends "
                             "into one request and answers each caller") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    // One request out makes the next sends wait (the default lets two go).
    pcfg.batch_partial_in_flight = 1;
    start();
    auto first = pending(async_atom::value, msg("m0"));
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    std::vector<decltype(first)> rest;
    for (int i = 1; i <= 3; ++i)
      rest.push_back(pending(async_atom::value, msg("m" + std::to_string(i))));
    // They wait for the request in flight.
    CHECK_EQ(broker("a").sends.size(), 1u);
    CHECK_EQ(dump()["brokers"]["broker-a"]["queued"], 3);
    answer_held("a");
    CHECK_EQ(result_of(first).queue_offset, 0);
    REQUIRE_EQ(broker("a").sends.size(), 2u);
    auto& batch = broker("a").sends[1];
    CHECK(batch.batch);
    auto keys = test::uniq_keys_of(batch);
    REQUIRE_EQ(keys.size(), 3u);
    answer_held("a");
    for (size_t i = 0; i < rest.size(); ++i) {
      auto res = result_of(rest[i]);
      CHECK_EQ(res.msg_id, keys[i]);
      CHECK_EQ(res.queue_offset, static_cast<int64_t>(i + 1));
      CHECK_EQ(res.queue.broker_name, "broker-a");
      REQUIRE_EQ(res.entries.size(), 1u);
      CHECK_EQ(res.entries[0].msg_id, keys[i]);
    }
    auto d = dump();
    CHECK_EQ(d["counters"]["batches"], 1);
    CHECK_EQ(d["counters"]["batched_messages"], 3);
    CHECK_EQ(d["in_flight"]["async_messages"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "by default a second async send goes at once "
                             "while one is in flight; the third waits") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    start();
    CHECK_EQ(dump()["config"]["batch_partial_in_flight"], 2);
    auto r0 = pending(async_atom::value, msg("m0"));
    auto r1 = pending(async_atom::value, msg("m1"));
    REQUIRE_EQ(broker("a").sends.size(), 2u);
    CHECK_FALSE(broker("a").sends[1].batch);
    auto r2 = pending(async_atom::value, msg("m2"));
    auto r3 = pending(async_atom::value, msg("m3"));
    CHECK_EQ(broker("a").sends.size(), 2u);
    CHECK_EQ(dump()["brokers"]["broker-a"]["queued"], 2);
    // One answer frees a place: both waiting ones go as one batch.
    answer_held("a");
    REQUIRE_EQ(broker("a").sends.size(), 3u);
    CHECK(broker("a").sends[2].batch);
    CHECK_EQ(test::uniq_keys_of(broker("a").sends[2]).size(), 2u);
    answer_held("a");
    answer_held("a");
    for (auto* rh : {&r0, &r1, &r2, &r3})
      result_of(*rh);
    CHECK_EQ(dump()["counters"]["batches"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "timed async sends are never auto-batched") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    start();
    auto first = pending(async_atom::value, msg("m0"));
    std::vector<decltype(first)> rest;
    for (int i = 1; i <= 2; ++i) {
      auto m = msg("t" + std::to_string(i));
      m.delay_ms = 5000;
      rest.push_back(pending(async_atom::value, m));
    }
    for (int i = 0; i < 3; ++i) {
      answer_held("a");
    }
    auto& got = broker("a").sends;
    REQUIRE_EQ(got.size(), 3u);
    for (auto& req : got)
      CHECK_FALSE(req.batch);
    int timed = 0;
    for (auto& req : got)
      timed += find_property(req.properties, "TIMER_DELAY_MS") == "5000" ? 1
                                                                         : 0;
    CHECK_EQ(timed, 2);
    for (auto& rh : rest)
      result_of(rh);
  }

  TEST_CASE_FIXTURE(fixture, "full auto-batches go while fewer than "
                             "batch_max_in_flight requests are in flight") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    pcfg.batch_max_messages = 2;
    pcfg.batch_max_in_flight = 2;
    // One request out makes the next sends wait (the default lets two go).
    pcfg.batch_partial_in_flight = 1;
    start();
    std::vector<decltype(pending(async_atom::value, msg()))> rhs;
    rhs.push_back(pending(async_atom::value, msg("m0")));
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    // m1 waits (a partial batch waits for an answer); m2 fills the batch,
    // which goes at once: one request in flight, room for two.
    rhs.push_back(pending(async_atom::value, msg("m1")));
    CHECK_EQ(broker("a").sends.size(), 1u);
    rhs.push_back(pending(async_atom::value, msg("m2")));
    REQUIRE_EQ(broker("a").sends.size(), 2u);
    CHECK(broker("a").sends[1].batch);
    // Two in flight: the next full batch waits.
    rhs.push_back(pending(async_atom::value, msg("m3")));
    rhs.push_back(pending(async_atom::value, msg("m4")));
    CHECK_EQ(broker("a").sends.size(), 2u);
    CHECK_EQ(dump()["brokers"]["broker-a"]["queued"], 2);
    answer_held("a");
    REQUIRE_EQ(broker("a").sends.size(), 3u);
    CHECK_EQ(test::uniq_keys_of(broker("a").sends[2]).size(), 2u);
    answer_held("a");
    for (auto& rh : rhs)
      result_of(rh);
    auto d = dump();
    CHECK_EQ(d["counters"]["batches"], 2);
    CHECK_EQ(d["in_flight"]["async_messages"], 0);
    CHECK_EQ(d["in_flight"]["attempts"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "an answer after its attempt's deadline is "
                             "dropped; the retry's answer is the result") {
    add_broker("a").how = fake_broker::mode::hold;
    add_broker("b").how = fake_broker::mode::hold;
    route("TopicA", {"a", "b"});
    pcfg.send_timeout = 3s;
    pcfg.attempt_timeout = 1s;
    start();
    auto rh = pending(send_atom::value, msg());
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    CHECK_EQ(dump()["in_flight"]["attempts"], 1);
    advance_time(1s, 100ms);
    REQUIRE_EQ(broker("b").sends.size(), 1u);
    // Broker a answers late: its attempt has ended, nothing changes.
    answer_held("a");
    CHECK(self->mailbox().empty());
    CHECK_EQ(dump()["in_flight"]["attempts"], 1);
    answer_held("b");
    REQUIRE_FALSE(self->mailbox().empty());
    CHECK_EQ(result_of(rh).queue.broker_name, "broker-b");
    auto d = dump();
    CHECK_EQ(d["in_flight"]["attempts"], 0);
    CHECK_EQ(d["brokers"]["broker-a"]["in_flight"], 0);
    CHECK_EQ(d["brokers"]["broker-b"]["in_flight"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "fast answers from an available broker send "
                             "no fault reports") {
    add_broker("a");
    route("TopicA", {"a"});
    start();
    for (int i = 0; i < 3; ++i)
      send_ok(msg());
    auto d
      = nlohmann::json::parse(ask<std::string>(inst.faults, dump_atom::value));
    CHECK_EQ(d["reports"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "with a linger, async sends to an idle broker "
                             "wait for company, then go as one batch") {
    add_broker("a");
    route("TopicA", {"a"});
    pcfg.batch_linger = 5ms;
    start();
    auto r0 = pending(async_atom::value, msg("m0"));
    auto r1 = pending(async_atom::value, msg("m1"));
    CHECK(broker("a").sends.empty());
    CHECK_EQ(dump()["lingering"].size(), 1u);
    advance_time(5ms, 1ms);
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    CHECK(broker("a").sends[0].batch);
    for (auto* rh : {&r0, &r1})
      result_of(*rh);
    CHECK(dump()["lingering"].empty());
  }

  TEST_CASE_FIXTURE(fixture, "a full batch does not wait for the linger") {
    add_broker("a");
    route("TopicA", {"a"});
    pcfg.batch_linger = 1s;
    pcfg.batch_max_messages = 2;
    start();
    auto r0 = pending(async_atom::value, msg("m0"));
    auto r1 = pending(async_atom::value, msg("m1"));
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    CHECK_EQ(test::uniq_keys_of(broker("a").sends[0]).size(), 2u);
    for (auto* rh : {&r0, &r1})
      result_of(*rh);
  }

  TEST_CASE_FIXTURE(fixture, "a failed auto-batch retries on another broker, "
                             "one result per message") {
    add_broker("a").how = fake_broker::mode::hold;
    add_broker("b");
    route("TopicA", {"a"});
    // One request out makes the next sends wait (the default lets two go).
    pcfg.batch_partial_in_flight = 1;
    start();
    auto first = pending(async_atom::value, msg("m0"));
    std::vector<decltype(first)> rest;
    for (int i = 1; i <= 3; ++i)
      rest.push_back(pending(async_atom::value, msg("m" + std::to_string(i))));
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    // broker-b joins the route; broker-a fails the batch.
    self->send(producer, route_atom::value, std::string{"TopicA"},
               test::route_over({"broker-a", "broker-b"}, 1));
    release("a");
    broker("a").how = fake_broker::mode::fail;
    broker("a").error = busy();
    sched.run();
    result_of(first);
    REQUIRE_EQ(broker("a").sends.size(), 2u);
    CHECK(broker("a").sends[1].batch);
    REQUIRE_EQ(broker("b").sends.size(), 1u);
    CHECK(broker("b").sends[0].batch);
    auto keys = test::uniq_keys_of(broker("b").sends[0]);
    REQUIRE_EQ(keys.size(), 3u);
    for (size_t i = 0; i < rest.size(); ++i) {
      auto res = result_of(rest[i]);
      CHECK_EQ(res.msg_id, keys[i]);
      CHECK_EQ(res.queue.broker_name, "broker-b");
      CHECK_EQ(res.queue_offset, static_cast<int64_t>(i));
    }
    CHECK_EQ(dump()["counters"]["retried"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a tagged async send is answered one-way, "
                             "with its tag, also when refused") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    pcfg.max_async_messages = 1;
    start();
    struct answer {
      uint64_t tag;
      std::string msg_id;
      caf::error err;
    };
    auto got = std::make_shared<std::vector<answer>>();
    auto sink = spawn([got](caf::event_based_actor*) -> caf::behavior {
      return {
        [got](async_atom, uint64_t tag, const client_send_result& r) {
          got->push_back({tag, r.msg_id, {}});
        },
        [got](async_atom, uint64_t tag, const caf::error& err) {
          got->push_back({tag, {}, err});
        },
      };
    });
    caf::send_as(sink, producer, async_atom::value, uint64_t{7}, msg("m0"));
    caf::send_as(sink, producer, async_atom::value, uint64_t{8}, msg("m1"));
    sched.run();
    // The second is over the bound: refused at once.
    REQUIRE_EQ(got->size(), 1u);
    CHECK_EQ((*got)[0].tag, 8u);
    CHECK((*got)[0].err == errc::system_busy);
    answer_held("a");
    REQUIRE_EQ(got->size(), 2u);
    CHECK_EQ((*got)[1].tag, 7u);
    CHECK_FALSE((*got)[1].err);
    CHECK_EQ((*got)[1].msg_id, test::uniq_keys_of(broker("a").sends[0])[0]);
  }

  TEST_CASE_FIXTURE(fixture, "back-pressure engages at the bound") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    pcfg.max_async_messages = 2;
    pcfg.max_async_bytes = 100;
    // One request out makes the next sends wait (the default lets two go).
    pcfg.batch_partial_in_flight = 1;
    start();
    auto r0 = pending(async_atom::value, msg("m0"));
    auto r1 = pending(async_atom::value, msg("m1"));
    auto err = ask_error<client_send_result>(producer, async_atom::value,
                                             msg("m2"));
    CHECK(err == errc::system_busy);
    CHECK_EQ(broker("a").sends.size(), 1u);
    answer_held("a");
    answer_held("a");
    for (auto* rh : {&r0, &r1})
      result_of(*rh);
    // Room again; the bytes bound counts too.
    auto r3 = pending(async_atom::value, msg(std::string(60, 'x')));
    err = ask_error<client_send_result>(producer, async_atom::value,
                                        msg(std::string(50, 'y')));
    CHECK(err == errc::system_busy);
    answer_held("a");
    result_of(r3);
    CHECK_EQ(dump()["counters"]["rejected_busy"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "invalid messages fail with no broker or "
                             "route asked") {
    add_broker("a");
    route("TopicA", {"a"});
    start();
    CHECK(send_error(msg("")) == errc::message_illegal);
    CHECK(ask_error<client_send_result>(producer, async_atom::value, msg(""))
          == errc::message_illegal);
    auto delayed = msg();
    delayed.delay_level = 99;
    CHECK(send_error(delayed) == errc::message_illegal);
    CHECK(send_error(std::vector<client_message>{}) == errc::message_illegal);
    CHECK(send_error(
            std::vector<client_message>{msg("x", "TopicA"), msg("y", "TopicB")})
          == errc::message_illegal);
    CHECK(send_error(msg(), message_queue{"TopicB", "broker-a", 0})
          == errc::message_illegal);
    CHECK(routes->asked.empty());
    CHECK(dir->connects.empty());
    CHECK_EQ(received_total(), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "a large body is sent compressed with the "
                             "flag") {
    add_broker("a");
    route("TopicA", {"a"});
    start();
    auto body = std::string(10000, 'x');
    send_ok(msg(body));
    send_ok(msg("small"));
    REQUIRE_EQ(broker("a").sends.size(), 2u);
    auto& big = broker("a").sends[0];
    CHECK((big.sys_flag & compressed_flag) != 0);
    CHECK_LT(big.body.size(), body.size());
    auto inflated = decompress_body(big.body, pcfg.max_message_size);
    REQUIRE(inflated);
    CHECK_EQ(*inflated, body);
    CHECK((broker("a").sends[1].sys_flag & compressed_flag) == 0);
  }

  TEST_CASE_FIXTURE(fixture, "a topic without a route goes to the default "
                             "topic's brokers") {
    add_broker("a");
    route("TBW102", {"a"}, 8);
    start();
    auto res = send_ok(msg("hello", "NewTopic"));
    CHECK_EQ(res.queue.broker_name, "broker-a");
    CHECK_EQ(res.queue.topic, "NewTopic");
    CHECK_LT(res.queue.queue_id, 4);
    auto& req = broker("a").sends.at(0);
    CHECK_EQ(req.topic, "NewTopic");
    CHECK_EQ(req.default_topic, "TBW102");
    auto topics = dump()["topics"];
    REQUIRE_EQ(topics.size(), 1u);
    CHECK_EQ(topics[0]["from_default"], true);
    CHECK_EQ(topics[0]["queues"], 4);
  }

  TEST_CASE_FIXTURE(fixture, "no route at all: topic_not_exist, no broker "
                             "asked") {
    add_broker("a");
    start();
    auto err = send_error(msg());
    CHECK(err == errc::topic_not_exist);
    CHECK_EQ(received_total(), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "topic_not_exist from a broker refreshes the "
                             "route and retries elsewhere") {
    start_failing_a_then_b(make_error(errc::topic_not_exist, "gone"));
    CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-b");
    CHECK_EQ(routes->refreshed, std::vector<std::string>{"TopicA"});
  }

  TEST_CASE_FIXTURE(fixture, "a broker that went down is forgotten, its "
                             "route refreshed and the retry goes elsewhere") {
    add_broker("a");
    add_broker("b");
    route("TopicA", {"a", "b"});
    start();
    CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-a");
    CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-b");
    caf::anon_send_exit(broker_handles["a"], caf::exit_reason::kill);
    sched.run();
    CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-b");
    CHECK_EQ(dir->forgotten, std::vector<std::string>{"a:10911"});
    CHECK_EQ(routes->refreshed, std::vector<std::string>{"TopicA"});
  }

  TEST_CASE_FIXTURE(fixture, "a send to a given queue has one attempt on its "
                             "broker") {
    add_failing_broker("a", busy());
    add_broker("b");
    route("TopicA", {"a", "b"}, 4);
    start();
    auto err = send_error(msg(), message_queue{"TopicA", "broker-a", 3});
    CHECK(err == errc::system_busy);
    CHECK_EQ(error_detail(err), "busy");
    REQUIRE_EQ(broker("a").sends.size(), 1u);
    CHECK_EQ(broker("a").sends[0].queue_id, 3);
    CHECK(broker("b").sends.empty());
    auto res = send_ok(msg(), message_queue{"TopicA", "broker-b", 2});
    CHECK_EQ(res.queue.queue_id, 2);
    CHECK_EQ(broker("b").sends.at(0).queue_id, 2);
  }

  TEST_CASE_FIXTURE(fixture, "a batch is one request, retried like one "
                             "send") {
    start_failing_a_then_b(busy());
    std::vector<client_message> msgs{msg("x"), msg("y"), msg("z")};
    auto res = send_ok(msgs);
    CHECK_EQ(res.queue.broker_name, "broker-b");
    REQUIRE_EQ(res.entries.size(), 3u);
    REQUIRE_EQ(broker("b").sends.size(), 1u);
    CHECK(broker("b").sends[0].batch);
    CHECK_EQ(test::uniq_keys_of(broker("b").sends[0]).size(), 3u);
  }

  TEST_CASE_FIXTURE(fixture, "a oneway send has one attempt and no "
                             "answer") {
    start_failing_a_then_b(busy());
    self->send(producer, oneway_atom::value, msg());
    sched.run();
    CHECK_EQ(broker("a").sends.size(), 1u);
    CHECK(broker("b").sends.empty());
    CHECK(self->mailbox().empty());
  }

  TEST_CASE_FIXTURE(fixture, "queues answers the sorted writable queues") {
    add_broker("b");
    add_broker("a");
    route("TopicA", {"b", "a"}, 2);
    start();
    auto qs = ask<std::vector<message_queue>>(producer, queues_atom::value,
                                              std::string{"TopicA"});
    REQUIRE_EQ(qs.size(), 4u);
    CHECK_EQ(qs[0].broker_name, "broker-a");
    CHECK_EQ(qs[0].queue_id, 0);
    CHECK_EQ(qs[1].queue_id, 1);
    CHECK_EQ(qs[3].broker_name, "broker-b");
    CHECK(ask_error<std::vector<message_queue>>(producer, queues_atom::value,
                                                std::string{"Nope"})
          == errc::topic_not_exist);
  }

  TEST_CASE_FIXTURE(fixture, "a pushed route replaces the cached one") {
    add_broker("a");
    add_broker("b");
    route("TopicA", {"a"});
    start();
    send_ok(msg());
    self->send(producer, route_atom::value, std::string{"TopicA"},
               test::route_over({"broker-b"}, 1));
    sched.run();
    CHECK_EQ(send_ok(msg()).queue.broker_name, "broker-b");
  }

  TEST_CASE_FIXTURE(fixture, "shutdown waits for sends in flight, "
                             "unregisters the group, then quits") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    start();
    auto s = pending(send_atom::value, msg());
    auto stop = pending(shutdown_atom::value);
    CHECK(self->mailbox().empty());
    CHECK(send_error(msg()) == errc::service_not_available);
    CHECK(hb->unregistered.empty());
    answer_held("a");
    result_of(s);
    stop.receive([](caf::ok_atom) {},
                 [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(hb->unregistered, std::vector<std::string>{"PG"});
    auto err = send_error(msg());
    CHECK(err == caf::sec::request_receiver_down);
  }

  TEST_CASE_FIXTURE(fixture, "the dump shows config, in-flight counts, "
                             "queues, topics and counters") {
    add_broker("a").how = fake_broker::mode::hold;
    route("TopicA", {"a"});
    // One request out makes the next sends wait (the default lets two go).
    pcfg.batch_partial_in_flight = 1;
    start();
    auto r0 = pending(async_atom::value, msg("m0"));
    auto r1 = pending(async_atom::value, msg("m1"));
    auto d = dump();
    CHECK_EQ(d["actor"], "send_loop");
    CHECK_EQ(d["config"]["group"], "PG");
    CHECK_EQ(d["config"]["send_timeout_ms"], 3000);
    CHECK_EQ(d["in_flight"]["async_messages"], 2);
    CHECK_EQ(d["in_flight"]["async_bytes"], 4);
    CHECK_EQ(d["brokers"]["broker-a"]["in_flight"], 1);
    CHECK_EQ(d["brokers"]["broker-a"]["queued"], 1);
    CHECK_EQ(d["topics"][0]["topic"], "TopicA");
    answer_held("a");
    answer_held("a");
    for (auto* rh : {&r0, &r1})
      result_of(*rh);
  }
}
