// The heartbeat sender with a real route cache over fake NameServers and
// fake brokers, on the virtual clock: who gets heartbeats and when, the
// answer after the first round, unregistration, and the brokers'
// consumer_ids_changed passed on.
#include "actors/client/instance/client_heartbeat_service.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "actors/client/instance/route_cache.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

const std::string ns = "10.0.0.1:9876";
const std::string client_id = "10.1.1.1@test";

// broker-a: a:10911 (master), a:10921 (slave); broker-b likewise.
const std::vector<std::string> masters{"a:10911", "b:10911"};
const std::vector<std::string> slaves{"a:10921", "b:10921"};

caf::behavior recorder(caf::event_based_actor*,
                       std::shared_ptr<std::vector<std::string>> out) {
  return {
    [=](const consumer_ids_changed& x) { out->push_back(x.group); },
  };
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_directory> net
    = std::make_shared<test::fake_directory>();
  std::shared_ptr<test::fake_namesrv> namesrv
    = std::make_shared<test::fake_namesrv>();
  std::map<std::string, std::shared_ptr<test::fake_broker>> brokers;
  peer_directory_actor directory;
  route_cache_actor routes;
  client_heartbeat_service_actor heartbeats;

  fixture() {
    directory = spawn(test::play_directory, net);
    namesrv->routes["TopicA"] = test::route_over({"broker-a", "broker-b"});
    net->namesrvs[ns] = spawn(test::play_namesrv, namesrv);
    for (auto& addr : {"a:10911", "a:10921", "b:10911", "b:10921"}) {
      auto st = std::make_shared<test::fake_broker>();
      brokers[addr] = st;
      net->brokers[addr] = spawn(test::play_broker, st);
    }
    route_cache_config rc;
    rc.namesrv_addrs = {ns};
    rc.directory = directory;
    rc.poll_interval = caf::timespan{0};
    rc.seed = 1;
    routes = spawn(route_cache, rc);
    client_heartbeat_config hc;
    hc.client_id = client_id;
    hc.routes = routes;
    hc.directory = directory;
    heartbeats = spawn(client_heartbeat_service, hc);
    // The producer asks for its topic's route first.
    ask<topic_route_data>(routes, route_atom::value, std::string{"TopicA"});
  }

  size_t beats(const std::string& addr) {
    return brokers.at(addr)->heartbeats.size();
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(
      ask<std::string>(heartbeats, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("client.heartbeat_service") {
  TEST_CASE_FIXTURE(fixture, "a new producer group heart-beats every master "
                             "at once and is answered after that round") {
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    for (auto& addr : masters) {
      REQUIRE_EQ(beats(addr), 1u);
      auto& hb = brokers[addr]->heartbeats[0];
      CHECK_EQ(hb.client_id, client_id);
      CHECK_EQ(hb.producer_groups, std::vector<std::string>{"G"});
      CHECK(hb.consumers.empty());
      // The sender itself is the channel brokers notify.
      CHECK_EQ(brokers[addr]->channels[0], heartbeats.address());
    }
    for (auto& addr : slaves)
      CHECK_EQ(beats(addr), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "heartbeats go out every 30 s and not before") {
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    advance_time(29s, 1s);
    CHECK_EQ(beats("a:10911"), 1u);
    advance_time(1s, 1s);
    CHECK_EQ(beats("a:10911"), 2u);
    CHECK_EQ(beats("b:10911"), 2u);
    advance_time(60s, 1s);
    CHECK_EQ(beats("a:10911"), 4u);
    CHECK_EQ(beats("a:10921"), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "a client without groups sends nothing") {
    advance_time(60s, 1s);
    for (auto& [addr, st] : brokers)
      CHECK(st->heartbeats.empty());
  }

  TEST_CASE_FIXTURE(fixture, "with a consumer group every address gets "
                             "heartbeats") {
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"P"});
    consumer_data c;
    c.group_name = "C";
    c.subscriptions.push_back(
      subscription_data{"TopicA", "*", "TAG", {}, {}, 1});
    ask<caf::ok_atom>(heartbeats, consumer_atom::value, c);
    for (auto& addr : slaves) {
      REQUIRE_EQ(beats(addr), 1u);
      auto& hb = brokers[addr]->heartbeats[0];
      REQUIRE_EQ(hb.consumers.size(), 1u);
      CHECK_EQ(hb.consumers[0], c);
      CHECK_EQ(hb.producer_groups, std::vector<std::string>{"P"});
    }
    for (auto& addr : masters)
      CHECK_EQ(beats(addr), 2u);
    advance_time(30s, 1s);
    for (auto& addr : slaves)
      CHECK_EQ(beats(addr), 2u);
  }

  TEST_CASE_FIXTURE(fixture, "a broker that does not answer delays the answer "
                             "only up to the request timeout") {
    brokers["b:10911"]->hung = true;
    auto rh = self->request(heartbeats, caf::infinite, producer_atom::value,
                            std::string{"G"});
    sched.run();
    CHECK(self->mailbox().empty());
    advance_time(3s, 1s);
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([](caf::ok_atom) {},
               [&](const caf::error& err) { FAIL(sys.render(err)); });
    auto d = dump();
    CHECK_EQ(d["rounds_in_flight"], 0);
    for (auto& row : d["brokers"])
      if (row["address"] == "b:10911")
        CHECK_EQ(row["failures"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "an unreachable broker does not keep the others "
                             "from their heartbeat") {
    net->down.insert("a:10911");
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    CHECK_EQ(beats("b:10911"), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "leaving a group unregisters it from every "
                             "broker address") {
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    ask<caf::ok_atom>(heartbeats, caf::delete_atom::value, producer_atom::value,
                      std::string{"G"});
    for (auto& [addr, st] : brokers) {
      REQUIRE_EQ(st->unregistrations.size(), 1u);
      CHECK_EQ(st->unregistrations[0],
               unregister_client_request{client_id, "G", ""});
    }
    // Nothing left to announce.
    advance_time(30s, 1s);
    CHECK_EQ(beats("a:10911"), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "a group two producers share is unregistered "
                             "when the last one leaves") {
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    // The second add was no new group: no extra round.
    CHECK_EQ(beats("a:10911"), 1u);
    ask<caf::ok_atom>(heartbeats, caf::delete_atom::value, producer_atom::value,
                      std::string{"G"});
    CHECK(brokers["a:10911"]->unregistrations.empty());
    ask<caf::ok_atom>(heartbeats, caf::delete_atom::value, producer_atom::value,
                      std::string{"G"});
    CHECK_EQ(brokers["a:10911"]->unregistrations.size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "a consumer group leaves with its own "
                             "unregistration") {
    consumer_data c;
    c.group_name = "C";
    ask<caf::ok_atom>(heartbeats, consumer_atom::value, c);
    ask<caf::ok_atom>(heartbeats, caf::delete_atom::value, consumer_atom::value,
                      std::string{"C"});
    for (auto& [addr, st] : brokers) {
      REQUIRE_EQ(st->unregistrations.size(), 1u);
      CHECK_EQ(st->unregistrations[0],
               unregister_client_request{client_id, "", "C"});
    }
  }

  TEST_CASE_FIXTURE(fixture, "consumer_ids_changed from a broker reaches "
                             "every listener") {
    auto got1 = std::make_shared<std::vector<std::string>>();
    auto got2 = std::make_shared<std::vector<std::string>>();
    auto l1 = spawn(recorder, got1);
    auto l2 = spawn(recorder, got2);
    caf::anon_send(heartbeats, caf::subscribe_atom::value, l1);
    caf::anon_send(heartbeats, caf::subscribe_atom::value, l2);
    sched.run();
    caf::anon_send(heartbeats, consumer_ids_changed{"C"});
    sched.run();
    CHECK_EQ(*got1, std::vector<std::string>{"C"});
    CHECK_EQ(*got2, std::vector<std::string>{"C"});
    CHECK_EQ(dump()["forwarded"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "the dump shows groups and brokers") {
    ask<caf::ok_atom>(heartbeats, producer_atom::value, std::string{"G"});
    auto d = dump();
    CHECK_EQ(d["actor"], "client_heartbeat_service");
    CHECK_EQ(d["client_id"], client_id);
    CHECK_EQ(d["producer_groups"][0]["group"], "G");
    CHECK_EQ(d["rounds"], 1);
    CHECK_EQ(d["brokers"].size(), 2u);
    CHECK_EQ(d["interval_ms"], 30000);
  }
}
