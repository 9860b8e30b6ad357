// Spawning a client instance: the NameServer list is checked, the actors
// are wired (the route cache hears of lost peers), client_instance_for
// shares one instance per actor system and NameServer list.
#include "actors/client/instance/client_instance.hpp"

#include <memory>
#include <string>

#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_directory> net
    = std::make_shared<test::fake_directory>();
  std::shared_ptr<test::fake_namesrv> namesrv
    = std::make_shared<test::fake_namesrv>();
  peer_directory_actor directory;

  fixture() {
    directory = spawn(test::play_directory, net);
    namesrv->routes["TopicA"] = test::route_over({"broker-a"});
    net->namesrvs["10.0.0.1:9876"] = spawn(test::play_namesrv, namesrv);
  }

  client_config config(const std::string& namesrv) {
    client_config cfg;
    cfg.namesrv = namesrv;
    cfg.directory = directory;
    cfg.client_ip = "10.1.1.1";
    return cfg;
  }
};

} // namespace

TEST_SUITE("client.client_instance") {
  TEST_CASE_FIXTURE(fixture, "a missing or malformed NameServer list is "
                             "invalid_parameter") {
    for (auto bad : {"", ";", "host", "host:port", "a:1;b"}) {
      auto inst = spawn_client_instance(sys, config(bad));
      REQUIRE_FALSE(inst);
      CHECK_EQ(inst.error(), errc::invalid_parameter);
      auto shared = client_instance_for(sys, config(bad));
      REQUIRE_FALSE(shared);
      CHECK_EQ(shared.error(), errc::invalid_parameter);
    }
  }

  TEST_CASE_FIXTURE(fixture, "an instance is wired: routes come through the "
                             "directory and lost peers reach the cache") {
    auto inst = spawn_client_instance(sys, config("10.0.0.1:9876"));
    REQUIRE(inst);
    sched.run();
    auto& i = **inst;
    CHECK_EQ(i.client_id.rfind("10.1.1.1@", 0), 0u);
    CHECK_EQ(i.directory, directory);
    REQUIRE_EQ(net->listeners.size(), 1u);
    CHECK_EQ(net->listeners[0].address(), i.routes.address());
    auto route = ask<topic_route_data>(i.routes, route_atom::value,
                                       std::string{"TopicA"});
    CHECK_EQ(route, test::route_over({"broker-a"}));
    caf::anon_send(net->listeners[0], peer_lost_atom::value,
                   std::string{"a:10911"});
    sched.run();
    CHECK_EQ(namesrv->asked["TopicA"], 2);
    auto faults = ask<fault_snapshot>(i.faults, fault_atom::value);
    CHECK(faults.items.empty());
    auto hb
      = nlohmann::json::parse(ask<std::string>(i.heartbeats, dump_atom::value));
    CHECK_EQ(hb["client_id"], i.client_id);
  }

  TEST_CASE_FIXTURE(fixture, "the client id is ip@instanceName, DEFAULT made "
                             "pid#nanotime") {
    auto cfg = config("10.0.0.1:9876");
    cfg.instance_name = "orders";
    auto named = spawn_client_instance(sys, cfg);
    REQUIRE(named);
    CHECK_EQ((*named)->client_id, "10.1.1.1@orders");
    auto dflt = spawn_client_instance(sys, config("10.0.0.1:9876"));
    REQUIRE(dflt);
    auto id = (*dflt)->client_id;
    auto hash = id.find('#');
    REQUIRE_NE(hash, std::string::npos);
    CHECK_EQ(id.substr(0, hash),
             "10.1.1.1@" + std::to_string(static_cast<int64_t>(getpid())));
  }

  TEST_CASE_FIXTURE(fixture, "client_instance_for shares one instance per "
                             "system and NameServer list") {
    auto a = client_instance_for(sys, config("10.0.0.1:9876;10.0.0.2:9876"));
    auto b = client_instance_for(sys, config("10.0.0.2:9876;10.0.0.1:9876;"));
    auto c = client_instance_for(sys, config("10.0.0.1:9876"));
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK_EQ(a->get(), b->get());
    CHECK_NE(a->get(), c->get());
    // Stopped: the next caller gets a new one.
    auto old_routes = (*a)->routes;
    stop_client_instance(sys, *a);
    sched.run();
    auto d = client_instance_for(sys, config("10.0.0.1:9876;10.0.0.2:9876"));
    REQUIRE(d);
    CHECK_NE((*d)->routes, old_routes);
    // Nobody holds it any more: forgotten, and a new one is spawned.
    auto c_routes = (*c)->routes;
    c = caf::error{};
    sched.run();
    auto e = client_instance_for(sys, config("10.0.0.1:9876"));
    REQUIRE(e);
    CHECK_NE((*e)->routes, c_routes);
  }

  TEST_CASE_FIXTURE(fixture, "stopping an instance stops its actors but not "
                             "a directory it was given") {
    auto inst = spawn_client_instance(sys, config("10.0.0.1:9876"));
    REQUIRE(inst);
    sched.run();
    auto routes = (*inst)->routes;
    self->monitor(routes);
    stop_client_instance(sys, *inst);
    sched.run();
    bool down = false;
    self->receive(
      [&](const caf::down_msg& dm) { down = dm.source == routes.address(); });
    CHECK(down);
    // The directory still answers.
    ask<std::string>(directory, dump_atom::value);
  }

  TEST_CASE_FIXTURE(fixture, "the rebalance service hears consumer_ids_changed "
                             "through the heartbeat sender and stops with "
                             "the instance") {
    auto inst = spawn_client_instance(sys, config("10.0.0.1:9876"));
    REQUIRE(inst);
    sched.run();
    auto rebalance = (*inst)->rebalance;
    REQUIRE(rebalance);
    caf::anon_send((*inst)->heartbeats, consumer_ids_changed{"G"});
    sched.run();
    auto dump
      = nlohmann::json::parse(ask<std::string>(rebalance, dump_atom::value));
    CHECK_EQ(dump["actor"], "rebalance_service");
    CHECK_EQ(dump["notifications"], 1);
    CHECK_EQ(dump["client_id"], (*inst)->client_id);
    self->monitor(rebalance);
    stop_client_instance(sys, *inst);
    sched.run();
    bool down = false;
    self->receive([&](const caf::down_msg& dm) {
      down = dm.source == rebalance.address();
    });
    CHECK(down);
  }
}
