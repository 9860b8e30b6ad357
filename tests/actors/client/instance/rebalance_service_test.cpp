// The rebalance service on the virtual clock: members split a topic's
// queues, a member leaving hands its queues over at the next round or at
// once on consumer_ids_changed, broadcasting gets everything, a failing
// broker is skipped for the member list, a transient route error keeps the
// assignment.
#include "actors/client/instance/rebalance_service.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_directory> net
    = std::make_shared<test::fake_directory>();
  std::shared_ptr<test::fake_route_cache> routes_st
    = std::make_shared<test::fake_route_cache>();
  std::shared_ptr<test::fake_broker> broker_a
    = std::make_shared<test::fake_broker>();
  std::shared_ptr<test::fake_broker> broker_b
    = std::make_shared<test::fake_broker>();
  peer_directory_actor directory;
  route_cache_actor routes;

  fixture() {
    directory = spawn(test::play_directory, net);
    routes = spawn(test::play_route_cache, routes_st);
    routes_st->routes["TopicA"] = test::route_over({"broker-a", "broker-b"});
    net->brokers["a:10911"] = caf::actor_cast<client_broker_actor>(
      spawn(test::play_broker, broker_a));
    net->brokers["b:10911"] = caf::actor_cast<client_broker_actor>(
      spawn(test::play_broker, broker_b));
    set_members({"c1", "c2"});
  }

  void set_members(std::vector<std::string> ids) {
    broker_a->members["G"] = ids;
    broker_b->members["G"] = ids;
  }

  rebalance_service_actor service(const std::string& client_id) {
    rebalance_service_config cfg;
    cfg.client_id = client_id;
    cfg.routes = routes;
    cfg.directory = directory;
    return spawn(rebalance_service, cfg);
  }

  std::pair<rebalance_target_actor, std::shared_ptr<test::target_log>>
  target() {
    auto log = std::make_shared<test::target_log>();
    return {spawn(test::recording_target, log), log};
  }

  void join(const rebalance_service_actor& svc, const rebalance_target_actor& t,
            message_model model = message_model::clustering) {
    rebalance_subscription sub;
    sub.group = "G";
    sub.model = model;
    sub.topics = {"TopicA"};
    ask<caf::ok_atom>(svc, caf::put_atom::value, sub, t);
    sched.run();
  }
};

std::vector<message_queue> queues_of(const std::string& broker,
                                     std::vector<int32_t> ids) {
  std::vector<message_queue> xs;
  for (auto i : ids)
    xs.push_back(message_queue{"TopicA", broker, i});
  return xs;
}

std::vector<message_queue> all_eight() {
  auto xs = queues_of("broker-a", {0, 1, 2, 3});
  auto ys = queues_of("broker-b", {0, 1, 2, 3});
  xs.insert(xs.end(), ys.begin(), ys.end());
  return xs;
}

} // namespace

TEST_SUITE("client.rebalance_service") {
  TEST_CASE_FIXTURE(fixture, "two members split 8 queues 4/4 at once on "
                             "registration") {
    auto s1 = service("c1");
    auto s2 = service("c2");
    auto [t1, log1] = target();
    auto [t2, log2] = target();
    join(s1, t1);
    join(s2, t2);
    REQUIRE_EQ(log1->got.size(), 1u);
    REQUIRE_EQ(log2->got.size(), 1u);
    CHECK_EQ(log1->got.back().topic, "TopicA");
    CHECK_EQ(log1->got.back().queues, queues_of("broker-a", {0, 1, 2, 3}));
    CHECK_EQ(log2->got.back().queues, queues_of("broker-b", {0, 1, 2, 3}));
    // The member list came from one broker, not both.
    CHECK_EQ(broker_a->member_asks, 2);
    CHECK_EQ(broker_b->member_asks, 0);
  }

  TEST_CASE_FIXTURE(fixture, "a member leaves: the other owns all 8 after the "
                             "next round") {
    auto s1 = service("c1");
    auto [t1, log1] = target();
    join(s1, t1);
    CHECK_EQ(log1->got.back().queues, queues_of("broker-a", {0, 1, 2, 3}));
    set_members({"c1"});
    advance_time(19s, 1s);
    CHECK_EQ(log1->got.size(), 1u);
    advance_time(1s, 1s);
    REQUIRE_EQ(log1->got.size(), 2u);
    CHECK_EQ(log1->got.back().queues, all_eight());
    // Every round tells the assignment, changed or not.
    advance_time(20s, 1s);
    REQUIRE_EQ(log1->got.size(), 3u);
    CHECK_EQ(log1->got.back().queues, all_eight());
  }

  TEST_CASE_FIXTURE(fixture, "consumer_ids_changed rebalances the group at "
                             "once, a burst as few rounds") {
    auto s1 = service("c1");
    auto [t1, log1] = target();
    join(s1, t1);
    set_members({"c2", "c1", "c3"});
    caf::anon_send(s1, consumer_ids_changed{"G"});
    sched.run();
    REQUIRE_EQ(log1->got.size(), 2u);
    // Sorted members c1, c2, c3: c1 gets the first 3 of 8.
    CHECK_EQ(log1->got.back().queues, queues_of("broker-a", {0, 1, 2}));
    set_members({"c1"});
    for (int i = 0; i < 5; ++i)
      caf::anon_send(s1, consumer_ids_changed{"G"});
    sched.run();
    // One round starts with the first, the others coalesce into one more.
    CHECK_EQ(log1->got.size(), 4u);
    CHECK_EQ(log1->got.back().queues, all_eight());
    // Another group's change does not touch G.
    caf::anon_send(s1, consumer_ids_changed{"other"});
    sched.run();
    CHECK_EQ(log1->got.size(), 4u);
  }

  TEST_CASE_FIXTURE(fixture, "broadcasting gets every queue without asking "
                             "for members") {
    auto s1 = service("c1");
    auto [t1, log1] = target();
    join(s1, t1, message_model::broadcasting);
    REQUIRE_EQ(log1->got.size(), 1u);
    CHECK_EQ(log1->got.back().queues, all_eight());
    CHECK_EQ(broker_a->member_asks + broker_b->member_asks, 0);
  }

  TEST_CASE_FIXTURE(fixture, "a failing broker for the member list: the next "
                             "broker answers") {
    auto s1 = service("c1");
    auto [t1, log1] = target();
    SUBCASE("the broker refuses the connection") {
      net->down.insert("a:10911");
    }
    SUBCASE("the broker answers an error") {
      broker_a->fail_members = true;
    }
    join(s1, t1);
    REQUIRE_EQ(log1->got.size(), 1u);
    CHECK_EQ(log1->got.back().queues, queues_of("broker-a", {0, 1, 2, 3}));
    CHECK_EQ(broker_b->member_asks, 1);
    auto dump = nlohmann::json::parse(ask<std::string>(s1, dump_atom::value));
    CHECK_EQ(dump["actor"], "rebalance_service");
    // broker-a's master, then its slave (in the route, not running here),
    // then broker-b's master, which answers.
    CHECK_EQ(dump["member_list_failures"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a transient route error or an empty member list "
                             "keeps the assignment") {
    auto s1 = service("c1");
    auto [t1, log1] = target();
    join(s1, t1);
    REQUIRE_EQ(log1->got.size(), 1u);
    SUBCASE("route error") {
      routes_st->failing.insert("TopicA");
    }
    SUBCASE("no broker answers the member list") {
      broker_a->fail_members = broker_b->fail_members = true;
    }
    SUBCASE("no members") {
      set_members({});
    }
    advance_time(20s, 1s);
    // Nothing sent: the consumer keeps pulling what it owns.
    CHECK_EQ(log1->got.size(), 1u);
    auto dump = nlohmann::json::parse(ask<std::string>(s1, dump_atom::value));
    REQUIRE_EQ(dump["consumers"].size(), 1u);
    CHECK(dump["consumers"][0]["kept"].contains("TopicA"));
    CHECK_EQ(dump["consumers"][0]["owned"]["TopicA"].size(), 4u);
    // Once it works again, the next round assigns.
    routes_st->failing.clear();
    broker_a->fail_members = broker_b->fail_members = false;
    set_members({"c1"});
    advance_time(20s, 1s);
    REQUIRE_EQ(log1->got.size(), 2u);
    CHECK_EQ(log1->got.back().queues, all_eight());
  }

  TEST_CASE_FIXTURE(fixture, "an unknown strategy is refused; a consumer "
                             "removed or gone gets nothing more") {
    auto s1 = service("c1");
    auto [t1, log1] = target();
    rebalance_subscription bad;
    bad.group = "G";
    bad.topics = {"TopicA"};
    bad.strategy = "NOPE";
    CHECK_EQ(ask_error<caf::ok_atom>(s1, caf::put_atom::value, bad, t1),
             errc::invalid_parameter);
    join(s1, t1);
    REQUIRE_EQ(log1->got.size(), 1u);
    caf::anon_send(s1, caf::delete_atom::value, t1);
    sched.run();
    advance_time(20s, 1s);
    CHECK_EQ(log1->got.size(), 1u);
  }
}
