// A NameServer facing bad input from the network: raw garbage on its TCP
// port, invalid requests, and message types outside its interface. Each
// gets an error (or is dropped) and the node keeps serving.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "caf/actor.hpp"
#include "caf/actor_cast.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "tests/support/test_seed.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq::test;

namespace {

// The node still answers a normal request.
void check_serves(remote_client& client, uint16_t port) {
  auto hdl = client.connect(port);
  REQUIRE(hdl);
  auto topics = client.ask<rmq::topic_list>(hdl,
                                            rmq::get_all_topic_list_request{});
  REQUIRE(topics);
  auto dump = client.ask<std::string>(hdl, rmq::dump_atom::value);
  CHECK(dump);
}

} // namespace

TEST_SUITE("system.namesrv.robustness") {
  TEST_CASE("raw garbage on the TCP port does not stop the NameServer") {
    auto ns = start_namesrv();
    auto seed = test_seed();
    for (auto& bytes : garbage_payloads(seed)) {
      int fd = raw_connect(ns.port);
      REQUIRE(fd >= 0);
      raw_send(fd, bytes);
      close(fd);
    }
    // A garbage connection left open while a real client works.
    int idle = raw_connect(ns.port);
    REQUIRE(idle >= 0);
    raw_send(idle, random_bytes(10, seed + 2));
    remote_client client;
    check_serves(client, ns.port);
    close(idle);
    CHECK_EQ(ns.proc->wait(0ms), -1); // still running
    check_serves(client, ns.port);
  }

  TEST_CASE("invalid requests from a remote client get the right errc") {
    auto ns = start_namesrv();
    remote_client client;
    auto hdl = client.connect(ns.port);
    REQUIRE(hdl);
    auto bad_topic = client.ask<rmq::topic_route_data>(
      hdl, rmq::get_route_info_request{"bad\ttopic"});
    REQUIRE_FALSE(bad_topic);
    CHECK(bad_topic.error() == rmq::errc::invalid_parameter);
    auto unknown = client.ask<rmq::topic_route_data>(
      hdl, rmq::get_route_info_request{"NoSuchTopic"});
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error() == rmq::errc::topic_not_exist);
    rmq::register_broker_request reg;
    reg.cluster_name = "DefaultCluster";
    reg.broker_name = "broker-x";
    reg.broker_addr = "no-port-here";
    auto bad_addr = client.ask<rmq::register_broker_result>(hdl, reg);
    REQUIRE_FALSE(bad_addr);
    CHECK(bad_addr.error() == rmq::errc::invalid_parameter);
    reg.broker_addr = "127.0.0.1:10911";
    reg.topics.push_back(rmq::topic_config{"bad\ntopic"});
    auto bad_cfg = client.ask<rmq::register_broker_result>(hdl, reg);
    REQUIRE_FALSE(bad_cfg);
    CHECK(bad_cfg.error() == rmq::errc::invalid_parameter);
    auto ghost = client.ask<caf::ok_atom>(
      hdl, rmq::broker_heartbeat_request{"DefaultCluster", "127.0.0.1:10999",
                                         "ghost", 0});
    REQUIRE_FALSE(ghost);
    CHECK(ghost.error() == rmq::errc::broker_not_found);
    auto no_kv = client.ask<std::string>(
      hdl, rmq::get_kv_config_request{"NS", "missing"});
    REQUIRE_FALSE(no_kv);
    CHECK(no_kv.error() == rmq::errc::query_not_found);
    // Nothing of the above left a trace.
    CHECK_FALSE(client.knows_broker(hdl, "broker-x"));
    check_serves(client, ns.port);
  }

  TEST_CASE("messages outside the interface are refused, the node serves on") {
    auto ns = start_namesrv();
    remote_client client;
    auto hdl = client.connect(ns.port);
    REQUIRE(hdl);
    auto dyn = caf::actor_cast<caf::actor>(hdl);
    auto probe = [&](auto msg) {
      caf::error err;
      bool answered = false;
      client.self->request(dyn, 2s, std::move(msg))
        .receive([&](int32_t) { answered = true; },
                 [&](caf::error& x) { err = std::move(x); });
      // An error reply (CAF: unexpected_message) or silence; never a value.
      CHECK_FALSE(answered);
      if (err != caf::sec::request_timeout)
        CHECK(err == caf::sec::unexpected_message);
    };
    probe(std::string{"hello"});
    probe(int32_t{42});
    probe(rmq::topic_config{"TopicA"});
    caf::anon_send(dyn, 3.14);
    check_serves(client, ns.port);
  }

} // TEST_SUITE

TEST_CASE("a node whose front actor is killed remotely exits non-zero") {
  // CAF 0.17 cannot refuse an exit message; a node that kept running
  // without its front actor would accept connections and answer nothing.
  auto ns = start_namesrv();
  {
    remote_client client;
    auto hdl = client.connect(ns.port);
    REQUIRE(hdl);
    caf::anon_send_exit(hdl, caf::exit_reason::kill);
  }
  CHECK_EQ(ns.proc->wait(10s), 1);
}
