// A client instance against a whole in-process NameServer and broker node
// (tests/actors/broker/broker_node_fixture.hpp) on the virtual clock, through
// the real peer directory over a fake connector: the broker's handle
// converts to client_broker_actor, routes come from the NameServer the
// broker registered with, heartbeats register groups at the broker, and
// the broker's consumer_ids_changed reaches the client's listeners.
#include "actors/client/instance/client_instance.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"
#include "caf/send.hpp"

#include "tests/actors/client/node_client_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

caf::behavior recorder(caf::event_based_actor*,
                       std::shared_ptr<std::vector<std::string>> out) {
  return {
    [=](const consumer_ids_changed& x) { out->push_back(x.group); },
  };
}

struct fixture : test::node_client_fixture {
  std::shared_ptr<client_instance> instance(const std::string& name) {
    client_config cfg;
    cfg.namesrv = test::namesrv_addr;
    cfg.client_ip = "10.1.1.1";
    cfg.instance_name = name;
    cfg.directory = directory;
    auto inst = spawn_client_instance(sys, cfg);
    REQUIRE(inst);
    for (auto hdl : {caf::actor_cast<caf::actor>((*inst)->routes),
                     caf::actor_cast<caf::actor>((*inst)->heartbeats),
                     caf::actor_cast<caf::actor>((*inst)->faults)})
      track(hdl);
    sched.run();
    return *inst;
  }
};

consumer_data consumer(const std::string& group) {
  consumer_data c;
  c.group_name = group;
  subscription_data s;
  s.topic = "TopicA";
  c.subscriptions.push_back(s);
  return c;
}

} // namespace

TEST_SUITE("client.client_instance_node") {
  TEST_CASE_FIXTURE(fixture, "routes come from the NameServer and heartbeats "
                             "register groups at the broker") {
    auto inst = instance("one");
    auto route = ask<topic_route_data>(inst->routes, route_atom::value,
                                       std::string{"TopicA"});
    REQUIRE_EQ(route.broker_datas.size(), 1u);
    CHECK_EQ(route.broker_datas[0].broker_addrs.at(0), test::node_broker_addr);
    ask<caf::ok_atom>(inst->heartbeats, producer_atom::value,
                      std::string{"PG"});
    auto d = clients();
    REQUIRE_EQ(d["producer_groups"].size(), 1u);
    CHECK_EQ(d["producer_groups"][0]["group"], "PG");
    CHECK_EQ(d["producer_groups"][0]["members"][0]["client_id"],
             "10.1.1.1@one");
    ask<caf::ok_atom>(inst->heartbeats, caf::delete_atom::value,
                      producer_atom::value, std::string{"PG"});
    CHECK(clients()["producer_groups"].empty());
  }

  TEST_CASE_FIXTURE(fixture, "a second member of a consumer group is "
                             "announced to the first one's listeners") {
    auto one = instance("one");
    auto two = instance("two");
    for (auto& inst : {one, two})
      ask<topic_route_data>(inst->routes, route_atom::value,
                            std::string{"TopicA"});
    auto got = std::make_shared<std::vector<std::string>>();
    caf::anon_send(one->heartbeats, caf::subscribe_atom::value,
                   spawn(recorder, got));
    ask<caf::ok_atom>(one->heartbeats, consumer_atom::value, consumer("CG"));
    got->clear(); // the group's creation may or may not be announced
    ask<caf::ok_atom>(two->heartbeats, consumer_atom::value, consumer("CG"));
    CHECK_EQ(*got, std::vector<std::string>{"CG"});
    auto members = ask<consumer_list>(node.frontend,
                                      get_consumer_list_request{"CG"});
    CHECK_EQ(members.client_ids,
             std::vector<std::string>{"10.1.1.1@one", "10.1.1.1@two"});
  }
}
