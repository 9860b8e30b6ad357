// The transaction messages have their wire names, survive CAF's binary
// serialization and render their fields as JSON; the states print as
// RocketMQ's names.
#include "messages/broker/transaction.hpp"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

using fixture = test::message_fixture;

} // namespace

TEST_SUITE("messages.broker_transaction") {
  TEST_CASE_FIXTURE(fixture, "end and check-back requests round-trip") {
    end_transaction_request end;
    end.producer_group = "PG";
    end.tran_state_table_offset = 7;
    end.commit_log_offset = 123456;
    end.state = static_cast<uint8_t>(transaction_state::rollback);
    end.from_transaction_check = true;
    end.msg_id = "0A0000010000000000000000000000AB";
    end.transaction_id = end.msg_id;
    auto j = check(end, "rmq.end_transaction_request");
    CHECK_EQ(j["tran_state_table_offset"], 7);
    CHECK_EQ(j["from_transaction_check"], true);
    check_transaction_state chk;
    chk.producer_group = "PG";
    chk.broker_name = "broker-a";
    chk.broker_addr = "127.0.0.1:10911";
    chk.tran_state_table_offset = 7;
    chk.commit_log_offset = 123456;
    chk.msg_id = end.msg_id;
    chk.offset_msg_id = "7F00000100002A9F000000000001E240";
    chk.record = std::string("\0\1\2rec", 6);
    auto k = check(chk, "rmq.check_transaction_state");
    CHECK_EQ(k["broker_addr"], "127.0.0.1:10911");
  }

  TEST_CASE("states print as RocketMQ's names") {
    CHECK_EQ(std::string{to_string(transaction_state::commit)},
             "COMMIT_MESSAGE");
    CHECK_EQ(std::string{to_string(transaction_state::rollback)},
             "ROLLBACK_MESSAGE");
    CHECK_EQ(std::string{to_string(transaction_state::unknown)}, "UNKNOW");
  }
}
