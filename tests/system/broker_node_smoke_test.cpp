// One real broker process with one NameServer: it registers, serves a send
// and a pull from another process, and stops with SIGTERM: exit 0,
// unregistered, data kept for the next start.
#include <csignal>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

TEST_CASE("a broker process serves sends and pulls and stops cleanly") {
  temp_dir dir;
  auto ns = start_namesrv();
  broker_launch how;
  how.namesrvs = {ns.addr()};
  how.store_dir = dir.path() + "/store";
  auto broker = start_broker_node(how);
  remote_client client;
  auto front = client.try_connect_to<broker_actor>(broker.port);
  REQUIRE_MESSAGE(front, describe(front.error()));
  auto sent = send_plain(client, *front, "TopicSmoke", "hello", 0);
  REQUIRE_MESSAGE(sent, describe(sent.error()));
  CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
  pull_message_request pull;
  pull.consumer_group = "G";
  pull.topic = "TopicSmoke";
  pull.queue_id = 0;
  pull.subscription = "*";
  auto got = client.ask<pull_message_result>(*front, pull);
  REQUIRE_MESSAGE(got, describe(got.error()));
  CHECK_EQ(got->message_count, 1);
  auto nsh = client.connect(ns.port);
  REQUIRE(nsh);
  CHECK(client.knows_broker(nsh, "broker-a"));
  broker.proc->signal(SIGTERM);
  CHECK_EQ(broker.proc->wait(), 0);
  CHECK(wait_until([&] { return !client.knows_broker(nsh, "broker-a"); }, 2s));
  // The next start finds the topic and the message.
  auto again = start_broker_node(how);
  auto front2 = client.try_connect_to<broker_actor>(again.port);
  REQUIRE(front2);
  auto got2 = client.ask<pull_message_result>(*front2, pull);
  REQUIRE(got2);
  CHECK_EQ(got2->message_count, 1);
}
