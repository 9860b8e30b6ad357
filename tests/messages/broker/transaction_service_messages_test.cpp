// The transaction actors' messages have their wire names, survive CAF's
// binary serialization and render their fields as JSON.
#include "messages/broker/transaction_service.hpp"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {
  template <class T>
  nlohmann::json check(const T& x, const std::string& name) {
    CHECK_EQ(name_of<T>(), name);
    CHECK(roundtrip(x) == x);
    nlohmann::json j = x;
    CHECK(j.template get<T>() == x);
    return j;
  }
};

} // namespace

TEST_SUITE("messages.broker_transaction_service") {
  TEST_CASE_FIXTURE(fixture, "progress and pending groups round-trip") {
    transaction_group_pending g{"PG", 3, 1700000000000};
    auto j = check(g, "rmq.transaction_group_pending");
    CHECK_EQ(j["pending"], 3);
    transaction_progress p;
    p.half_offset = 4;
    p.half_max_offset = 9;
    p.op_offset = 2;
    p.op_max_offset = 5;
    p.pending = 3;
    p.checks = 7;
    p.discarded = 1;
    p.groups.push_back(g);
    auto k = check(p, "rmq.transaction_progress");
    CHECK_EQ(k["groups"][0]["producer_group"], "PG");
    CHECK_EQ(k["discarded"], 1);
    CHECK_EQ(name_of<end_transaction_processor_actor>(),
             "rmq.end_transaction_processor_actor");
    CHECK_EQ(name_of<transaction_check_service_actor>(),
             "rmq.transaction_check_service_actor");
  }
}
