// The NameServer registrar against whole in-process NameServers
// (spawn_namesrv) on the virtual clock. A fake connector stands in for the
// network: it hands out the NameServer behind an address, refuses
// addresses that are down and never answers addresses that hang.
#include "actors/broker/node/namesrv_registrar.hpp"

#include <algorithm>
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
#include "caf/node_id.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"

#include "actors/namesrv/namesrv_node.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_connector.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

const std::string addr_a = "10.0.0.1:9876";
const std::string addr_b = "10.0.0.2:9876";
const std::string broker = "broker-a";

/// A NameServer that refuses the first `refusals` registrations with
/// broker_not_found and then accepts them, answering a slave's view.
caf::behavior forgetful_namesrv(caf::event_based_actor*,
                                std::shared_ptr<int> calls, int refusals) {
  return {
    [=](const register_broker_request&) -> caf::result<register_broker_result> {
      if ((*calls)++ < refusals)
        return make_error(errc::broker_not_found, "forgot you");
      register_broker_result res;
      res.master_addr = "10.9.9.9:10911";
      res.ha_server_addr = "10.9.9.9:10912";
      return res;
    },
    [=](const broker_heartbeat_request&) { return caf::ok_atom::value; },
  };
}

topic_config topic(const std::string& name) {
  topic_config tc;
  tc.topic_name = name;
  tc.read_queue_nums = tc.write_queue_nums = 4;
  return tc;
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_net> net = std::make_shared<test::fake_net>();
  caf::actor connector;
  std::map<std::string, namesrv_node> nodes;
  std::vector<std::string> events;
  namesrv_registrar_actor registrar;

  fixture() {
    connector = spawn(test::fake_connector, net);
  }

  /// Starts an empty NameServer behind `addr` (replacing a stopped one).
  namesrv_actor start_namesrv(const std::string& addr) {
    namesrv_options opts;
    opts.detach_io = false;
    auto node = spawn_namesrv(sys, opts);
    track(node.supervisor);
    for (auto& hdl : node.actors)
      track(hdl);
    sched.run();
    net->publish(addr, node.frontend);
    nodes[addr] = node;
    return node.frontend;
  }

  /// Stops the NameServer behind `addr`, as namesrv_node::stop does
  /// (which blocks, so it cannot run on the test coordinator).
  void stop_namesrv(const std::string& addr) {
    auto& node = nodes.at(addr);
    caf::anon_send_exit(node.supervisor, caf::exit_reason::user_shutdown);
    sched.run();
    for (auto& hdl : node.actors)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
    sched.run();
    net->up.erase(addr);
  }

  namesrv_registrar_options options(std::vector<std::string> addrs) {
    namesrv_registrar_options opts;
    for (auto& addr : addrs)
      opts.namesrv_addrs.push_back(*parse_host_port(addr));
    opts.broker_addr = "127.0.0.1:10911";
    opts.broker_name = broker;
    opts.ha_server_addr = "127.0.0.1:10912";
    opts.topics = topic_config_set{{topic("TopicA")}, data_version{0, 1, 1}};
    opts.connector = connector;
    opts.on_event = [this](const std::string& line) { events.push_back(line); };
    return opts;
  }

  void start_registrar(std::vector<std::string> addrs) {
    registrar = spawn(namesrv_registrar, options(std::move(addrs)));
  }

  bool knows_broker(const std::string& addr) {
    auto info = ask<cluster_info>(net->at<namesrv_actor>(addr),
                                  get_broker_cluster_info_request{});
    return info.broker_addr_table.count(broker) > 0;
  }

  bool routes(const std::string& addr, const std::string& topic) {
    bool result = false;
    request(net->at<namesrv_actor>(addr), get_route_info_request{topic})
      .receive(
        [&](const topic_route_data& route) {
          for (auto& qd : route.queue_datas)
            if (qd.broker_name == broker)
              result = true;
        },
        [&](const caf::error& err) {
          CHECK_MESSAGE(err == errc::topic_not_exist, sys.render(err));
        });
    return result;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(registrar, dump_atom::value));
  }

  /// The registrar's dump of the NameServer at `addr`.
  nlohmann::json peer(const std::string& addr) {
    auto d = dump();
    for (auto& p : d.at("namesrvs"))
      if (p.at("address") == addr)
        return p;
    FAIL("no NameServer " << addr << " in the dump");
    return {};
  }

  int64_t registrations(const std::string& addr) {
    return peer(addr).at("registrations").get<int64_t>();
  }

  bool saw(const std::string& line) {
    for (auto& x : events)
      if (x == line)
        return true;
    return false;
  }
};

} // namespace

TEST_SUITE("broker.namesrv_registrar") {
  TEST_CASE_FIXTURE(fixture, "registers with every NameServer at start") {
    start_namesrv(addr_a);
    start_namesrv(addr_b);
    start_registrar({addr_a, addr_b});
    for (auto& addr : {addr_a, addr_b}) {
      CHECK(knows_broker(addr));
      CHECK(routes(addr, "TopicA"));
      auto p = peer(addr);
      CHECK_EQ(p.at("connected"), true);
      CHECK_EQ(p.at("registrations"), 1);
      CHECK_EQ(p.at("last_result"), "ok");
      CHECK_EQ(p.at("last_registration_ms").get<int64_t>() >= 0, true);
      CHECK_EQ(p.at("registered_version").at("counter"), 1);
      CHECK(saw("registered with " + addr));
    }
    auto d = dump();
    CHECK_EQ(d.at("actor"), "namesrv_registrar");
    CHECK_EQ(d.at("broker_name"), broker);
    CHECK_EQ(d.at("topics"), 1);
  }

  TEST_CASE_FIXTURE(fixture, "with wait_for_open nothing is registered "
                             "until the port is open") {
    start_namesrv(addr_a);
    auto opts = options({addr_a});
    opts.wait_for_open = true;
    registrar = spawn(namesrv_registrar, std::move(opts));
    advance_time(40s, 1s);
    CHECK_FALSE(knows_broker(addr_a));
    CHECK_EQ(registrations(addr_a), 0);
    CHECK_EQ(dump().at("open"), false);
    // A new topic set waits too.
    self->send(registrar, caf::put_atom::value,
               topic_config_set{{topic("TopicA"), topic("TopicB")},
                                data_version{0, 2, 2}});
    sched.run();
    CHECK_FALSE(knows_broker(addr_a));
    self->send(registrar, caf::open_atom::value);
    sched.run();
    CHECK(knows_broker(addr_a));
    CHECK(routes(addr_a, "TopicB"));
    CHECK_EQ(registrations(addr_a), 1);
    // Rounds run from then on; a second open changes nothing.
    self->send(registrar, caf::open_atom::value);
    advance_time(30s, 1s);
    CHECK_EQ(registrations(addr_a), 2);
  }

  TEST_CASE_FIXTURE(fixture, "re-registers every 30 s and heart-beats every "
                             "second in between") {
    start_namesrv(addr_a);
    start_namesrv(addr_b);
    start_registrar({addr_a, addr_b});
    advance_time(29s, 1s);
    CHECK_EQ(registrations(addr_a), 1);
    CHECK_EQ(peer(addr_a).at("heartbeats"), 29);
    advance_time(1s, 1s);
    CHECK_EQ(registrations(addr_a), 2);
    CHECK_EQ(registrations(addr_b), 2);
    advance_time(30s, 1s);
    CHECK_EQ(registrations(addr_a), 3);
    CHECK_EQ(registrations(addr_b), 3);
    CHECK_EQ(peer(addr_b).at("failures"), 0);
  }

  TEST_CASE_FIXTURE(fixture, "a new topic set registers at once and the "
                             "NameServers route its topics") {
    start_namesrv(addr_a);
    start_namesrv(addr_b);
    start_registrar({addr_a, addr_b});
    CHECK_FALSE(routes(addr_a, "TopicB"));
    topic_config_set next{{topic("TopicA"), topic("TopicB")},
                          data_version{0, 2, 2}};
    self->send(registrar, caf::put_atom::value, next);
    sched.run(); // no clock advance: at once
    for (auto& addr : {addr_a, addr_b}) {
      CHECK(routes(addr, "TopicB"));
      CHECK_EQ(registrations(addr), 2);
      CHECK_EQ(peer(addr).at("registered_version").at("counter"), 2);
    }
    CHECK_EQ(dump().at("topics"), 2);
  }

  TEST_CASE_FIXTURE(fixture, "a NameServer restarted empty gets the broker "
                             "back at the next heartbeat") {
    start_namesrv(addr_a);
    start_namesrv(addr_b);
    start_registrar({addr_a, addr_b});
    advance_time(5s, 1s);
    stop_namesrv(addr_a);
    CHECK_EQ(peer(addr_a).at("connected"), false);
    CHECK(saw("lost " + addr_a + " ("
              + describe(caf::exit_reason::user_shutdown) + ")"));
    start_namesrv(addr_a);
    CHECK_FALSE(knows_broker(addr_a));
    advance_time(1s, 100ms);
    CHECK(knows_broker(addr_a));
    CHECK(routes(addr_a, "TopicA"));
    CHECK_EQ(registrations(addr_a), 2);
    // The other one was not disturbed.
    CHECK_EQ(registrations(addr_b), 1);
  }

  TEST_CASE_FIXTURE(fixture, "a heartbeat answered broker_not_found "
                             "registers at once") {
    start_namesrv(addr_a);
    start_namesrv(addr_b);
    start_registrar({addr_a, addr_b});
    // The NameServer forgets us (an operator, or its broker timeout) while
    // the connection stays up.
    unregister_broker_request req{"DefaultCluster", "127.0.0.1:10911", broker,
                                  master_id};
    ask<caf::ok_atom>(net->at<namesrv_actor>(addr_b), req);
    REQUIRE_FALSE(knows_broker(addr_b));
    advance_time(1s, 100ms);
    CHECK(knows_broker(addr_b));
    CHECK(routes(addr_b, "TopicA"));
    CHECK_EQ(registrations(addr_b), 2);
    CHECK(saw(addr_b + " does not know us: registering again"));
    CHECK_EQ(peer(addr_b).at("connected"), true);
  }

  TEST_CASE_FIXTURE(fixture, "a NameServer that is down or hangs does not "
                             "delay the other") {
    start_namesrv(addr_a);
    net->hung.insert(addr_b);
    start_registrar({addr_a, addr_b});
    // No clock advance: the hanging connect does not hold back the other.
    CHECK(knows_broker(addr_a));
    CHECK_EQ(registrations(addr_a), 1);
    CHECK_EQ(peer(addr_b).at("connecting"), true);
    advance_time(30s, 1s);
    CHECK_EQ(registrations(addr_a), 2);
    CHECK_EQ(peer(addr_a).at("heartbeats").get<int64_t>() >= 28, true);
    auto b = peer(addr_b);
    CHECK_EQ(b.at("connected"), false);
    CHECK_GT(b.at("failures").get<int64_t>(), 0);
    CHECK_NE(b.at("last_error"), "");
    // Then it comes up (refusing first, then serving): it is connected
    // again within a heartbeat interval of being reachable.
    net->hung.clear();
    advance_time(4s, 1s);
    CHECK_EQ(peer(addr_b).at("connected"), false);
    start_namesrv(addr_b);
    advance_time(1s, 100ms);
    CHECK(knows_broker(addr_b));
    CHECK_EQ(registrations(addr_b), 1);
  }

  TEST_CASE_FIXTURE(fixture, "with every NameServer down nothing breaks") {
    start_registrar({addr_a, addr_b});
    advance_time(61s, 1s);
    auto d = dump();
    CHECK_EQ(d.at("stopping"), false);
    for (auto& p : d.at("namesrvs")) {
      CHECK_EQ(p.at("connected"), false);
      CHECK_EQ(p.at("registrations"), 0);
      CHECK_GT(p.at("failures").get<int64_t>(), 50);
      CHECK_EQ(p.at("connect_failures"), p.at("failures"));
    }
    // Reported once per streak, not once a second.
    CHECK_EQ(std::count(
               events.begin(), events.end(),
               "cannot connect to " + addr_a + ": "
                 + describe(caf::make_error(caf::sec::cannot_connect_to_node))),
             1);
    start_namesrv(addr_a);
    advance_time(1s, 100ms);
    CHECK(knows_broker(addr_a));
    CHECK_EQ(peer(addr_a).at("connect_failures"), 0);
  }

  TEST_CASE_FIXTURE(fixture, "a graceful stop unregisters from every "
                             "NameServer, answers, then quits") {
    start_namesrv(addr_a);
    start_namesrv(addr_b);
    start_registrar({addr_a, addr_b});
    REQUIRE(knows_broker(addr_a));
    REQUIRE(knows_broker(addr_b));
    self->monitor(registrar);
    ask<caf::ok_atom>(registrar, caf::delete_atom::value);
    CHECK(saw("unregistered from " + addr_a));
    CHECK(saw("unregistered from " + addr_b));
    CHECK_FALSE(knows_broker(addr_a));
    CHECK_FALSE(knows_broker(addr_b));
    bool down = false;
    self->receive([&](const caf::down_msg& dm) {
      down = dm.source == registrar.address();
    });
    CHECK(down);
  }

  TEST_CASE_FIXTURE(fixture, "a graceful stop waits no longer than the "
                             "unregister timeout for a silent NameServer") {
    start_namesrv(addr_a);
    // Behind addr_b an actor that takes every request and never answers.
    auto silent = sys.spawn([](caf::event_based_actor* self) {
      // Takes the request and never answers (no error either).
      self->set_default_handler(
        [](caf::scheduled_actor*,
           caf::message_view&) -> caf::result<caf::message> {
          return caf::delegated<caf::message>{};
        });
      return caf::behavior{[](int) {}};
    });
    track(silent);
    net->publish(addr_b, caf::actor_cast<namesrv_actor>(silent));
    start_registrar({addr_a, addr_b});
    REQUIRE(knows_broker(addr_a));
    REQUIRE_EQ(peer(addr_b).at("connected"), true);
    self->monitor(registrar);
    auto rh = self->request(registrar, caf::infinite, caf::delete_atom::value);
    sched.run();
    CHECK(saw("unregistered from " + addr_a));
    CHECK(self->mailbox().empty()); // still waiting for addr_b
    advance_time(3s, 500ms);
    bool answered = false;
    rh.receive([&](caf::ok_atom) { answered = true; },
               [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK(answered);
    CHECK_FALSE(saw("unregistered from " + addr_b));
    bool down = false;
    self->receive([&](const caf::down_msg& dm) {
      down = dm.source == registrar.address();
    });
    CHECK(down);
  }

  TEST_CASE_FIXTURE(fixture, "a registration answered broker_not_found is "
                             "retried at once, once; the result is kept") {
    auto calls = std::make_shared<int>(0);
    auto fake = sys.spawn(forgetful_namesrv, calls, 1);
    track(fake);
    net->publish(addr_a, caf::actor_cast<namesrv_actor>(fake));
    start_registrar({addr_a});
    CHECK_EQ(*calls, 2);
    auto p = peer(addr_a);
    CHECK_EQ(p.at("registrations"), 1);
    CHECK_EQ(p.at("master_addr"), "10.9.9.9:10911");
    CHECK_EQ(p.at("ha_server_addr"), "10.9.9.9:10912");
  }

  TEST_CASE_FIXTURE(fixture, "a slave registers again every second until a "
                             "NameServer names its master, then heart-beats") {
    start_namesrv(addr_a);
    std::vector<std::string> masters;
    auto so = options({addr_a});
    so.broker_addr = "127.0.0.1:10921";
    so.broker_id = 1;
    so.on_master = [&](const std::string& addr) { masters.push_back(addr); };
    registrar = spawn(namesrv_registrar, so);
    sched.run();
    advance_time(3s, 1s);
    CHECK_EQ(registrations(addr_a), 4);
    CHECK(masters.empty());
    // Its master registers: the slave's next registration learns of it.
    auto mo = options({addr_a});
    spawn(namesrv_registrar, mo);
    sched.run();
    advance_time(1s, 1s);
    REQUIRE_FALSE(masters.empty());
    // Where its slaves copy from: the master's haServerAddr (brokerIP2).
    CHECK_EQ(masters.back(), "127.0.0.1:10912");
    auto regs = registrations(addr_a);
    advance_time(10s, 1s);
    CHECK_EQ(registrations(addr_a), regs);
    CHECK_GE(peer(addr_a).at("heartbeats").get<int64_t>(), 10);
  }

  TEST_CASE_FIXTURE(fixture, "a NameServer that always answers "
                             "broker_not_found is not hammered") {
    auto calls = std::make_shared<int>(0);
    auto fake = sys.spawn(forgetful_namesrv, calls, 1000);
    track(fake);
    net->publish(addr_a, caf::actor_cast<namesrv_actor>(fake));
    start_registrar({addr_a});
    CHECK_EQ(*calls, 2);
    advance_time(29s, 1s);
    CHECK_EQ(*calls, 2);
    advance_time(1s, 1s);
    CHECK_EQ(*calls, 3); // the next round, no retry
    CHECK_EQ(peer(addr_a).at("registrations"), 0);
    CHECK(
      peer(addr_a).at("last_result").get<std::string>().find("broker_not_found")
      != std::string::npos);
  }
}
