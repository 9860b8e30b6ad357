// rmq-node restarted at once on its port, after SIGKILL and after SIGTERM,
// while a client was connected: the connection the node closed sits in
// TIME_WAIT on that port, and without SO_REUSEADDR the new node could not
// listen for ~60 s ("cannot listen on ...: Address already in use").
#include <csignal>
#include <string>

#include <doctest/doctest.h>

#include "tests/system/namesrv_system_support.hpp"

using namespace rmq::test;

namespace {

// A node with a connected client that has asked something (so that the
// connection carried traffic both ways), stopped with `sig`.
uint16_t run_and_stop(int sig, uint16_t port) {
  namesrv_launch how;
  how.port = port;
  auto ns = start_namesrv(how);
  remote_client client;
  auto hdl = client.connect(ns.port);
  REQUIRE(hdl);
  REQUIRE(client.ask<rmq::topic_list>(hdl, rmq::get_all_topic_list_request{}));
  ns.proc->signal(sig);
  CHECK_EQ(ns.proc->wait(), sig == SIGKILL ? 128 + SIGKILL : 0);
  return ns.port;
}

void check_restarts_on(uint16_t port) {
  namesrv_launch how;
  how.port = port;
  // start_namesrv REQUIREs the "listening" line; a node that cannot bind
  // prints "cannot listen" and exits 1 instead.
  auto ns = start_namesrv(how);
  CHECK_EQ(ns.port, port);
  remote_client client;
  auto hdl = client.connect(ns.port);
  REQUIRE(hdl);
  CHECK(client.ask<rmq::topic_list>(hdl, rmq::get_all_topic_list_request{}));
}

} // namespace

TEST_SUITE("system.namesrv.restart") {
  TEST_CASE("a NameServer killed with SIGKILL restarts at once on its port") {
    auto port = run_and_stop(SIGKILL, 0);
    check_restarts_on(port);
  }

  TEST_CASE("a NameServer stopped with SIGTERM restarts at once on its port") {
    auto port = run_and_stop(SIGTERM, 0);
    check_restarts_on(port);
  }

} // TEST_SUITE
