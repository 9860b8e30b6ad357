// The peer directory against a fake connector (the network as a map of
// address -> actor) on the virtual clock: one connect per address however
// many ask, failures returned, a lost peer forgotten and told.
#include "actors/client/instance/peer_directory.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/exit_reason.hpp"
#include "caf/node_id.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"
#include "tests/support/fake_connector.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

const std::string broker_addr = "10.0.0.1:10911";
const std::string namesrv_addr = "10.0.0.2:9876";

peer_listener_actor::behavior_type
lost_recorder(peer_listener_actor::pointer,
              std::shared_ptr<std::vector<std::string>> out) {
  return {
    [=](peer_lost_atom, const std::string& addr) { out->push_back(addr); },
  };
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_net> net = std::make_shared<test::fake_net>();
  client_broker_actor broker;
  client_namesrv_actor namesrv;
  peer_directory_actor directory;

  fixture() {
    peer_directory_config cfg;
    cfg.connector = spawn(test::fake_connector, net);
    cfg.connect_timeout = 3s;
    directory = spawn(peer_directory, cfg);
    broker = spawn(test::play_broker, std::make_shared<test::fake_broker>());
    namesrv = spawn(test::play_namesrv, std::make_shared<test::fake_namesrv>());
    net->publish(broker_addr, broker);
    net->publish(namesrv_addr, namesrv);
  }

  client_broker_actor connect_broker(const std::string& addr) {
    return ask<client_broker_actor>(directory, caf::connect_atom::value, addr);
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(directory, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("client.peer_directory") {
  TEST_CASE_FIXTURE(fixture, "concurrent connects to one address share one "
                             "attempt and one handle") {
    auto a = self->request(directory, caf::infinite, caf::connect_atom::value,
                           broker_addr);
    auto b = self->request(directory, caf::infinite, caf::connect_atom::value,
                           broker_addr);
    sched.run();
    int answers = 0;
    for (auto* rh : {&a, &b})
      rh->receive(
        [&](const client_broker_actor& hdl) {
          CHECK_EQ(hdl, broker);
          ++answers;
        },
        [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(answers, 2);
    CHECK_EQ(net->connects, 1);
    // Later connects reuse it.
    CHECK_EQ(connect_broker(broker_addr), broker);
    CHECK_EQ(net->connects, 1);
    auto d = dump();
    REQUIRE_EQ(d["peers"].size(), 1u);
    CHECK_EQ(d["peers"][0]["state"], "connected");
  }

  TEST_CASE_FIXTURE(fixture, "a NameServer connect answers the NameServer "
                             "interface") {
    auto hdl = ask<client_namesrv_actor>(directory, caf::connect_atom::value,
                                         route_atom::value, namesrv_addr);
    CHECK_EQ(hdl, namesrv);
    // A NameServer is no broker.
    auto err = ask_error<client_broker_actor>(
      directory, caf::connect_atom::value, namesrv_addr);
    CHECK_EQ(err, caf::sec::unexpected_actor_messaging_interface);
  }

  TEST_CASE_FIXTURE(fixture, "a refused connect is returned, shown in the "
                             "dump and tried again next time") {
    auto err = ask_error<client_broker_actor>(
      directory, caf::connect_atom::value, std::string{"10.0.0.9:10911"});
    CHECK_EQ(err, caf::sec::cannot_connect_to_node);
    auto d = dump();
    REQUIRE_EQ(d["peers"].size(), 1u);
    CHECK_EQ(d["peers"][0]["state"], "failed");
    CHECK_NE(d["peers"][0]["last_error"], "");
    net->publish("10.0.0.9:10911", broker);
    CHECK_EQ(connect_broker("10.0.0.9:10911"), broker);
    CHECK_EQ(net->connects, 2);
  }

  TEST_CASE_FIXTURE(fixture, "a connect that hangs fails after the connect "
                             "timeout") {
    net->hung.insert(broker_addr);
    auto rh = self->request(directory, caf::infinite, caf::connect_atom::value,
                            broker_addr);
    sched.run();
    CHECK(self->mailbox().empty());
    CHECK_EQ(dump()["peers"][0]["state"], "connecting");
    advance_time(2s, 1s);
    CHECK(self->mailbox().empty());
    advance_time(1s, 1s);
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([](const client_broker_actor&) { FAIL("expected an error"); },
               [](const caf::error& err) {
                 CHECK_EQ(err, caf::sec::request_timeout);
               });
  }

  TEST_CASE_FIXTURE(fixture, "a lost peer is forgotten and told to the "
                             "listeners") {
    auto lost = std::make_shared<std::vector<std::string>>();
    auto listener = spawn(lost_recorder, lost);
    caf::anon_send(directory, caf::subscribe_atom::value, listener);
    connect_broker(broker_addr);
    caf::anon_send_exit(broker, caf::exit_reason::user_shutdown);
    sched.run();
    CHECK_EQ(*lost, std::vector<std::string>{broker_addr});
    CHECK(dump()["peers"].empty());
    // The next connect opens a new connection.
    auto again = spawn(test::play_broker,
                       std::make_shared<test::fake_broker>());
    net->publish(broker_addr, again);
    CHECK_EQ(connect_broker(broker_addr), again);
    CHECK_EQ(net->connects, 2);
    CHECK_EQ(dump()["listeners"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "delete forgets an address") {
    connect_broker(broker_addr);
    caf::anon_send(directory, caf::delete_atom::value, broker_addr);
    sched.run();
    CHECK(dump()["peers"].empty());
    connect_broker(broker_addr);
    CHECK_EQ(net->connects, 2);
  }

  TEST_CASE_FIXTURE(fixture, "a malformed address is invalid_parameter "
                             "without a connect") {
    auto err = ask_error<client_broker_actor>(
      directory, caf::connect_atom::value, std::string{"no-port"});
    CHECK_EQ(err, errc::invalid_parameter);
    CHECK_EQ(net->connects, 0);
  }
}
