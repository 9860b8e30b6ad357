// The stand-in broker's NameServer registrar across real processes: a
// graceful stop unregisters, and a NameServer restarted behind the same
// port gets the broker back within a heartbeat or two.
#include <chrono>
#include <csignal>
#include <string>

#include <doctest/doctest.h>

#include "tests/support/wait_until.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq::test;

TEST_SUITE("system.standin_broker") {
  TEST_CASE("SIGTERM unregisters the broker from every NameServer, then it "
            "exits 0") {
    auto ns1 = start_namesrv();
    auto ns2 = start_namesrv();
    auto broker = start_broker({ns1.addr(), ns2.addr()});
    remote_client client;
    auto hdl1 = client.connect(ns1.port);
    auto hdl2 = client.connect(ns2.port);
    REQUIRE(hdl1);
    REQUIRE(hdl2);
    REQUIRE(client.knows_broker(hdl1, "broker-a"));
    broker->signal(SIGTERM);
    std::string addr;
    CHECK(broker->wait_for("unregistered from ", addr, 5s));
    CHECK(broker->wait_for("unregistered from ", addr, 5s));
    CHECK_EQ(broker->wait(), 0);
    CHECK(
      wait_until([&] { return !client.knows_broker(hdl1, "broker-a"); }, 10s));
    CHECK(
      wait_until([&] { return !client.knows_broker(hdl2, "broker-a"); }, 10s));
  }

  TEST_CASE("a NameServer restarted on the same port gets the broker back "
            "long before the 30 s round") {
    auto ns = start_namesrv();
    auto port = ns.port;
    auto broker = start_broker({ns.addr()});
    ns.proc->signal(SIGKILL);
    CHECK_EQ(ns.proc->wait(), 128 + SIGKILL);
    std::string rest;
    REQUIRE(broker->wait_for("lost ", rest, 5s));
    namesrv_launch how;
    how.port = port;
    auto again = start_namesrv(how);
    auto t0 = std::chrono::steady_clock::now();
    REQUIRE(broker->wait_for("registered with ", rest, 10s));
    CHECK_LT(std::chrono::steady_clock::now() - t0, 10s);
    remote_client client;
    auto hdl = client.connect(again.port);
    REQUIRE(hdl);
    CHECK(client.knows_broker(hdl, "broker-a"));
  }
}
