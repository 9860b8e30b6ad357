// The client instance's actor handles have their wire names (a handle that
// travels in a message must be registered).
#include "messages/broker/broker.hpp"
#include "messages/client/client.hpp"
#include "messages/namesrv/namesrv.hpp"

#include <doctest/doctest.h>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.client_instance") {
  TEST_CASE_FIXTURE(fixture, "client instance handles are registered") {
    CHECK_EQ(name_of<client_broker_actor>(), "rmq.client_broker_actor");
    CHECK_EQ(name_of<client_namesrv_actor>(), "rmq.client_namesrv_actor");
    CHECK_EQ(name_of<peer_listener_actor>(), "rmq.peer_listener_actor");
    CHECK_EQ(name_of<peer_directory_actor>(), "rmq.peer_directory_actor");
    CHECK_EQ(name_of<route_listener_actor>(), "rmq.route_listener_actor");
    CHECK_EQ(name_of<route_cache_actor>(), "rmq.route_cache_actor");
    CHECK_EQ(name_of<client_heartbeat_service_actor>(),
             "rmq.client_heartbeat_service_actor");
  }

  TEST_CASE_FIXTURE(fixture, "a broker's handle converts to the client "
                             "interface") {
    // What the peer directory checks when a broker answers a connect.
    CHECK(
      sys.assignable<client_broker_actor>(sys.message_types<broker_actor>()));
    CHECK(
      sys.assignable<client_namesrv_actor>(sys.message_types<namesrv_actor>()));
  }
}
