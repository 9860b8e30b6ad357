// The producer's handle has its wire name (its messages are tested in
// client_messages_test.cpp), so a producer actor can be passed to another
// node.
#include "messages/client/client.hpp"

#include <doctest/doctest.h>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.producer") {
  TEST_CASE_FIXTURE(fixture, "the producer handle is registered") {
    CHECK_EQ(name_of<producer_actor>(), "rmq.producer_actor");
  }
}
