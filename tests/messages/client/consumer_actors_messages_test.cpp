// The rebalance service's and the lite pull consumer's handles have their
// wire names, and a lite pull consumer is a rebalance target.
#include "messages/client/consumer.hpp"

#include <doctest/doctest.h>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.consumer_actors") {
  TEST_CASE_FIXTURE(fixture, "rebalance and lite pull handles are "
                             "registered") {
    CHECK_EQ(name_of<rebalance_target_actor>(), "rmq.rebalance_target_actor");
    CHECK_EQ(name_of<rebalance_service_actor>(), "rmq.rebalance_service_actor");
    CHECK_EQ(name_of<lite_pull_consumer_actor>(),
             "rmq.lite_pull_consumer_actor");
  }

  TEST_CASE_FIXTURE(fixture, "a lite pull consumer converts to a rebalance "
                             "target") {
    CHECK(sys.assignable<rebalance_target_actor>(
      sys.message_types<lite_pull_consumer_actor>()));
  }
}
