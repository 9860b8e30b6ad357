// The transaction producer's messages and handles have their names,
// survive CAF's binary serialization and render their fields as JSON.
#include "messages/client/transaction_producer.hpp"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {};

} // namespace

TEST_SUITE("messages.transaction_producer") {
  TEST_CASE_FIXTURE(fixture, "transaction producer messages are registered "
                             "and round-trip") {
    local_transaction_result local;
    local.state = static_cast<uint8_t>(transaction_state::commit);
    local.error = "boom";
    auto j = check(local, "rmq.local_transaction_result");
    CHECK_EQ(j["state"], 0);
    CHECK_EQ(j["error"], "boom");
    transaction_send_result res;
    res.send.msg_id = "AC1100010001000000000000000000AB";
    res.send.queue.broker_name = "broker-a";
    res.send.queue_offset = 7;
    res.local_state = static_cast<uint8_t>(transaction_state::rollback);
    res.local_error = "thrown";
    res.end_error = "no address";
    j = check(res, "rmq.transaction_send_result");
    CHECK_EQ(j["send"]["queue_offset"], 7);
    CHECK_EQ(j["local_state"], 1);
    CHECK_EQ(j["end_error"], "no address");
    CHECK_EQ(name_of<transaction_check_listener_actor>(),
             "rmq.transaction_check_listener_actor");
    CHECK_EQ(name_of<transaction_worker_actor>(),
             "rmq.transaction_worker_actor");
    CHECK_EQ(name_of<transaction_producer_actor>(),
             "rmq.transaction_producer_actor");
  }
}
