// The blocking producer facade in a threaded actor system, against fake
// brokers (tests/support/fake_broker.hpp) and a fake client instance
// (tests/actors/client/fake_client_instance.hpp): sync, batch, queue and
// ordered sends, async callbacks, facade-side back-pressure and shutdown.
#include "actors/client/producer/producer.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "caf/actor_system.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "actors/client/instance/latency_fault_service.hpp"
#include "messages/common/errors.hpp"
#include "runtime/process/node_config.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/fake_broker.hpp"
#include "tests/support/wait_until.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::instance_books {
  node_config cfg;
  caf::actor_system sys{cfg};
  std::map<std::string, std::shared_ptr<test::fake_broker>> brokers;
  std::map<std::string, test::fake_broker_actor> broker_handles;
  std::vector<caf::actor> spawned;
  client_instance inst;
  producer_config pcfg;

  fixture() {
    pcfg.group = "PG";
    pcfg.start_index = [] { return uint32_t{0}; };
    std::vector<std::string> names;
    for (auto x : {"a", "b"}) {
      auto script = std::make_shared<test::fake_broker>();
      brokers[x] = script;
      auto hdl = sys.spawn(test::play_broker, script);
      broker_handles[x] = hdl;
      dir->brokers[std::string{x} + ":10911"] = hdl;
      spawned.push_back(caf::actor_cast<caf::actor>(hdl));
      names.push_back(std::string{"broker-"} + x);
    }
    routes->routes["TopicA"] = test::route_over(names, 2);
    inst.client_id = "10.0.0.9@facade";
    spawn_instance(inst, test::spawn_into(sys, spawned));
  }

  ~fixture() {
    for (auto& hdl : spawned)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  }

  producer make() {
    auto p = spawn_producer(sys, pcfg, inst);
    REQUIRE(p);
    return *p;
  }

  void release(const std::string& x) {
    caf::anon_send(broker_handles.at(x), test::release_atom::value);
  }

  static client_message msg(std::string body = "hello") {
    client_message m;
    m.topic = "TopicA";
    m.body = std::move(body);
    return m;
  }
};

} // namespace

TEST_SUITE("client.producer") {
  TEST_CASE("select_by_hash picks as RocketMQ's SelectMessageQueueByHash") {
    std::vector<message_queue> qs(4);
    client_message m;
    // "order-1".hashCode() == -1207111310 in Java; |-1207111310 % 4| = 2.
    CHECK_EQ(select_by_hash(qs, m, "order-1"), 2u);
    // "a".hashCode() == 97.
    CHECK_EQ(select_by_hash(qs, m, "a"), 1u);
    CHECK_EQ(select_by_hash({}, m, "a"), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "the facade sends, sends batches, to a queue and "
                             "ordered by key") {
    auto p = make();
    auto res = p.send(msg());
    REQUIRE(res);
    CHECK_EQ(res->msg_id.size(), 32u);
    auto batch = p.send_batch({msg("x"), msg("y"), msg("z")});
    REQUIRE(batch);
    CHECK_EQ(batch->entries.size(), 3u);
    auto to = p.send_to(msg(), message_queue{"TopicA", "broker-b", 1});
    REQUIRE(to);
    CHECK_EQ(to->queue.broker_name, "broker-b");
    CHECK_EQ(to->queue.queue_id, 1);
    auto o1 = p.send_ordered(msg(), select_by_hash, "order-1");
    auto o2 = p.send_ordered(msg(), select_by_hash, "order-1");
    REQUIRE(o1);
    REQUIRE(o2);
    // Sorted queues: a/0, a/1, b/0, b/1; index 2 is broker-b's queue 0.
    CHECK_EQ(o1->queue.broker_name, "broker-b");
    CHECK_EQ(o1->queue.queue_id, 0);
    CHECK(o2->queue.queue_id == o1->queue.queue_id);
    auto bad = p.send(msg(""));
    REQUIRE_FALSE(bad);
    CHECK(bad.error() == errc::message_illegal);
    p.shutdown();
    CHECK_EQ(hb->unregistered, std::vector<std::string>{"PG"});
  }

  TEST_CASE_FIXTURE(fixture, "async callbacks run once each and shutdown "
                             "waits for them") {
    auto p = make();
    std::atomic<int> ok{0};
    std::atomic<int> failed{0};
    constexpr int n = 200;
    for (int i = 0; i < n; ++i)
      p.send_async(msg("m" + std::to_string(i)),
                   [&](caf::expected<client_send_result> res) {
                     if (res)
                       ++ok;
                     else
                       ++failed;
                   });
    p.shutdown();
    CHECK_EQ(ok.load(), n);
    CHECK_EQ(failed.load(), 0);
    CHECK_EQ(hb->unregistered, std::vector<std::string>{"PG"});
  }

  TEST_CASE_FIXTURE(fixture, "async sends fail, never hang, once the send "
                             "loop is gone") {
    brokers["a"]->how = test::fake_broker::mode::hold;
    brokers["b"]->how = test::fake_broker::mode::hold;
    auto p = make();
    std::atomic<int> failed{0};
    auto cb = [&](caf::expected<client_send_result> res) {
      CHECK_FALSE(res);
      ++failed;
    };
    for (int i = 0; i < 3; ++i)
      p.send_async(msg("m" + std::to_string(i)), cb);
    REQUIRE(test::wait_until(
      [&] { return brokers["a"]->send_count + brokers["b"]->send_count >= 1; },
      10s));
    caf::anon_send_exit(p.handle(), caf::exit_reason::kill);
    CHECK(test::wait_until([&] { return failed.load() == 3; }, 10s));
    // A send after it is gone fails too.
    p.send_async(msg("late"), cb);
    CHECK(test::wait_until([&] { return failed.load() == 4; }, 10s));
  }

  TEST_CASE_FIXTURE(fixture, "past the bound, send_async waits for room") {
    pcfg.max_async_messages = 1;
    pcfg.send_timeout = 10s;
    brokers["a"]->how = test::fake_broker::mode::hold;
    brokers["b"]->how = test::fake_broker::mode::hold;
    auto p = make();
    std::atomic<int> done{0};
    auto cb = [&](caf::expected<client_send_result> res) {
      CHECK(res);
      ++done;
    };
    p.send_async(msg("m0"), cb);
    REQUIRE(
      test::wait_until([&] { return brokers["a"]->send_count == 1; }, 10s));
    std::atomic<bool> returned{false};
    std::thread second{[&] {
      p.send_async(msg("m1"), cb);
      returned = true;
    }};
    // The second caller waits until the first is answered.
    CHECK_FALSE(returned.load());
    CHECK_EQ(done.load(), 0);
    release("a");
    second.join();
    CHECK(returned.load());
    REQUIRE(test::wait_until(
      [&] { return brokers["a"]->send_count + brokers["b"]->send_count == 2; },
      10s));
    release("a");
    release("b");
    REQUIRE(test::wait_until([&] { return done == 2; }, 10s));
    p.shutdown();
  }
}
