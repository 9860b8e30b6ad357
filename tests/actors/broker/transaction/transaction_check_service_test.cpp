// The transaction check service on the virtual clock with a whole node:
// an unresolved half message is checked back with a live producer of its
// group after the transaction timeout, on the 30 s schedule, and resolved
// by the answer; no producer online costs no check; after 15 checks it is
// discarded to TRANS_CHECK_MAX_TIME_TOPIC; a restart rebuilds the pending
// set from the store. Fake producers are plain actors that heartbeat the
// client manager (as in client_manager_test.cpp).
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/broker/transaction_service.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/actors/broker/broker_node_fixture.hpp"

using namespace rmq;

namespace {

using namespace std::chrono_literals;

/// What a fake producer saw and how it answers check-backs.
struct producer_log {
  std::vector<check_transaction_state> checks;
  /// Answered to each check (unknown: no answer at all).
  transaction_state answer = transaction_state::unknown;
};

using producer_log_ptr = std::shared_ptr<producer_log>;

// A producer's channel: relays heartbeats to the client manager (so it is
// the channel) and answers check-backs to the broker one-way.
caf::behavior fake_producer(caf::event_based_actor* self,
                            client_manager_actor mgr, broker_actor broker,
                            producer_log_ptr log) {
  return {
    [=](const client_heartbeat& x) {
      auto rp = self->make_response_promise();
      self->request(mgr, caf::infinite, x)
        .then([rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
              [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [=](const check_transaction_state& x) {
      log->checks.push_back(x);
      if (log->answer == transaction_state::unknown)
        return;
      end_transaction_request end;
      end.producer_group = x.producer_group;
      end.tran_state_table_offset = x.tran_state_table_offset;
      end.commit_log_offset = x.commit_log_offset;
      end.state = static_cast<uint8_t>(log->answer);
      end.from_transaction_check = true;
      end.msg_id = x.msg_id;
      end.transaction_id = x.transaction_id;
      caf::anon_send(broker, end);
    },
  };
}

struct fixture : test::broker_node_fixture {
  producer_log_ptr log = std::make_shared<producer_log>();
  caf::actor producer;

  fixture() {
    create_topic("T");
  }

  /// A restart also takes the producer's channel away.
  void restart() {
    broker_node_fixture::restart();
    producer = caf::actor{};
  }

  /// Puts a producer of `group` online (again).
  void online(const std::string& group = "PG") {
    if (!producer)
      producer = spawn(fake_producer, node.clients, node.frontend, log);
    ask<caf::ok_atom>(producer, client_heartbeat{"P@1", {group}, {}});
  }

  send_result half(const std::string& body, const std::string& group = "PG",
                   const std::string& immunity_s = "") {
    auto req = half_req(body, group, 0);
    if (!immunity_s.empty())
      append_property(req.properties, property_check_immunity_time, immunity_s);
    return ask<send_result>(node.send, req);
  }

  end_transaction_request end_req(const send_result& res,
                                  transaction_state state) {
    end_transaction_request req;
    req.producer_group = "PG";
    req.tran_state_table_offset = res.queue_offset;
    auto stored = decode_offset_msg_id(res.offset_msg_id);
    REQUIRE(stored);
    req.commit_log_offset = stored->offset;
    req.state = static_cast<uint8_t>(state);
    req.msg_id = res.msg_id;
    return req;
  }

  /// Moves the virtual clock on by `d` in 1 s steps; the producer keeps
  /// heartbeating (every 30 s, as clients do) while `heartbeat` is set.
  void wait(caf::timespan d, bool heartbeat = true) {
    for (caf::timespan t{0}; t < d; t += 1s) {
      if (heartbeat && producer && elapsed % 30 == 0)
        ask<caf::ok_atom>(producer, client_heartbeat{"P@1", {"PG"}, {}});
      sched.advance_time(1s);
      sched.run();
      ++elapsed;
    }
  }

  int64_t elapsed = 0;

  std::vector<std::string> buffers;

  std::vector<record_view> records(const std::string& topic) {
    get_message_request req;
    req.topic = topic;
    req.queue_id = 0;
    req.max_count = 1000;
    req.max_bytes = 16 << 20;
    auto res = ask<get_message_result>(node.store.queue_service, req);
    if (res.status != static_cast<uint8_t>(get_status::found))
      return {};
    buffers.push_back(res.buffer);
    auto recs = decode_records(buffers.back());
    REQUIRE(recs);
    return *recs;
  }

  std::vector<std::string> bodies(const std::string& topic) {
    std::vector<std::string> out;
    for (auto& rec : records(topic))
      out.emplace_back(rec.body);
    return out;
  }

  transaction_progress progress() {
    return ask<transaction_progress>(node.transaction_check,
                                     caf::get_atom::value);
  }

  int64_t pending(const std::string& group) {
    for (auto& g : progress().groups)
      if (g.producer_group == group)
        return g.pending;
    return 0;
  }
};

using strings = std::vector<std::string>;

} // namespace

TEST_SUITE("broker.transaction_check_service") {
  TEST_CASE_FIXTURE(fixture, "no answer: checked back on the 30 s schedule "
                             "after the timeout, resolved by the check") {
    online();
    half("a");
    wait(25s);
    half("b"); // 5 s old at the first round: spared
    CHECK_EQ(pending("PG"), 2);
    wait(4s);
    CHECK(log->checks.empty());
    wait(1s); // 30 s: the first round
    REQUIRE_EQ(log->checks.size(), 1u);
    auto& chk = log->checks.front();
    CHECK_EQ(chk.producer_group, "PG");
    CHECK_EQ(chk.msg_id, "TXN1");
    CHECK_EQ(chk.transaction_id, "TXN1");
    CHECK_EQ(chk.broker_name, "broker-a");
    CHECK_EQ(chk.broker_addr, "127.0.0.1:10921");
    // The check names the copy it re-put, one check counted.
    CHECK_EQ(chk.tran_state_table_offset, 2);
    auto recs = decode_records(chk.record);
    REQUIRE(recs);
    REQUIRE_EQ(recs->size(), 1u);
    CHECK_EQ(recs->front().body, "a");
    CHECK_EQ(recs->front().queue_offset, 2);
    CHECK_EQ(find_property(recs->front().properties,
                           property_transaction_check_times),
             "1");
    CHECK_EQ(pending("PG"), 2); // each transaction once, copies or not
    CHECK(bodies("T").empty());
    // The producer knows now: it commits when asked.
    log->answer = transaction_state::commit;
    wait(30s);
    // 60 s: "b" and the copy of "a" are checked, in half queue order.
    REQUIRE_EQ(log->checks.size(), 3u);
    CHECK_EQ(bodies("T"), strings{"b", "a"});
    CHECK_EQ(pending("PG"), 0);
    wait(60s);
    CHECK_EQ(log->checks.size(), 3u);
    CHECK_EQ(bodies("T"), strings{"b", "a"});
  }

  TEST_CASE_FIXTURE(fixture, "a rollback by check is never visible") {
    online();
    half("a");
    log->answer = transaction_state::rollback;
    wait(30s);
    CHECK_EQ(log->checks.size(), 1u);
    CHECK_EQ(pending("PG"), 0);
    wait(90s);
    CHECK_EQ(log->checks.size(), 1u);
    CHECK(bodies("T").empty());
  }

  TEST_CASE_FIXTURE(fixture, "the producer's own end after a check resolves "
                             "the copy too") {
    online();
    auto a = half("a");
    wait(30s);
    REQUIRE_EQ(log->checks.size(), 1u);
    // The producer's commit names its send, not the check's copy.
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::commit));
    CHECK_EQ(bodies("T"), strings{"a"});
    CHECK_EQ(pending("PG"), 0);
    wait(60s);
    CHECK_EQ(log->checks.size(), 1u);
    CHECK_EQ(bodies("T"), strings{"a"});
  }

  TEST_CASE_FIXTURE(fixture, "no producer online: the round skips it and "
                             "counts nothing") {
    half("a");
    wait(90s, false);
    CHECK(log->checks.empty());
    CHECK_EQ(records(trans_half_topic).size(), 1u); // no copy was made
    online();
    wait(30s);
    REQUIRE_EQ(log->checks.size(), 1u);
    auto recs = decode_records(log->checks.front().record);
    REQUIRE(recs);
    CHECK_EQ(find_property(recs->front().properties,
                           property_transaction_check_times),
             "1");
  }

  TEST_CASE_FIXTURE(fixture, "after 15 checks it goes to "
                             "TRANS_CHECK_MAX_TIME_TOPIC") {
    online();
    half("a");
    wait(15 * 30s);
    CHECK_EQ(log->checks.size(), 15u);
    CHECK(records(trans_check_max_time_topic).empty());
    CHECK_EQ(pending("PG"), 1);
    wait(30s); // the 16th round discards it
    CHECK_EQ(log->checks.size(), 15u);
    auto discarded = records(trans_check_max_time_topic);
    REQUIRE_EQ(discarded.size(), 1u);
    CHECK_EQ(discarded.front().body, "a");
    CHECK_EQ(find_property(discarded.front().properties,
                           property_transaction_check_times),
             "15");
    CHECK_EQ(pending("PG"), 0);
    CHECK_EQ(progress().discarded, 1);
    wait(60s);
    CHECK_EQ(log->checks.size(), 15u);
    CHECK(bodies("T").empty());
    // Resolved in the store too: a restart does not bring it back.
    restart();
    CHECK_EQ(progress().pending, 0);
  }

  TEST_CASE_FIXTURE(fixture, "a restart rebuilds the pending set from the "
                             "store") {
    online();
    auto a = half("a");
    half("b");
    half("c", "QG");
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::commit));
    wait(30s); // "b" is checked once (copied), QG has no producer
    REQUIRE_EQ(log->checks.size(), 1u);
    CHECK_EQ(pending("PG"), 1);
    CHECK_EQ(pending("QG"), 1);
    // brokerStatus shows them per group (rmq-admin prints one line each).
    auto info = ask<broker_runtime_info>(node.frontend,
                                         broker_runtime_info_request{});
    CHECK_EQ(info.table["transactionHalfPending"], "2");
    CHECK_EQ(info.table["transactionHalfPending_PG"], "1");
    CHECK_EQ(info.table["transactionHalfPending_QG"], "1");
    CHECK_EQ(info.table["transactionChecks"], "1");
    auto dump = nlohmann::json::parse(
      ask<std::string>(node.frontend, dump_atom::value));
    CHECK_NE(dump.dump().find("transaction_check_service"), std::string::npos);
    CHECK_NE(dump.dump().find("end_transaction_processor"), std::string::npos);
    restart();
    auto p = progress();
    CHECK_EQ(p.pending, 2);
    CHECK_EQ(pending("PG"), 1);
    CHECK_EQ(pending("QG"), 1);
    // Its check count survived: the next check is the second.
    log->checks.clear();
    online();
    wait(30s);
    REQUIRE_EQ(log->checks.size(), 1u);
    auto recs = decode_records(log->checks.front().record);
    REQUIRE(recs);
    CHECK_EQ(recs->front().body, "b");
    CHECK_EQ(find_property(recs->front().properties,
                           property_transaction_check_times),
             "2");
    CHECK_EQ(bodies("T"), strings{"a"});
  }

  TEST_CASE_FIXTURE(fixture, "CHECK_IMMUNITY_TIME_IN_SECONDS replaces the "
                             "transaction timeout") {
    online();
    auto a = half("a", "PG", "60");
    wait(60s); // rounds at 30 s and 60 s: 60 s old at most, spared
    CHECK(log->checks.empty());
    // Past its immunity the producer's own end is refused
    // (rejectCommitOrRollback); a check's answer is not.
    wait(1s);
    CHECK_EQ(ask_error<caf::ok_atom>(node.frontend,
                                     end_req(a, transaction_state::commit)),
             errc::system_error);
    log->answer = transaction_state::commit;
    wait(29s); // 90 s
    CHECK_EQ(log->checks.size(), 1u);
    CHECK_EQ(bodies("T"), strings{"a"});
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt progress file is kept aside and the "
                             "set is rebuilt from the start of both queues") {
    online();
    auto a = half("a");
    half("b");
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::commit));
    wait(30s);
    stop();
    node = broker_node{};
    auto path = dir.path() + "/config/transactionOffset.json";
    {
      std::ofstream out{path, std::ios::trunc};
      out << "{not json";
    }
    start();
    CHECK(std::ifstream{path + ".corrupt.1"}.good());
    auto p = progress();
    CHECK_EQ(p.pending, 1);
    CHECK_EQ(pending("PG"), 1);
  }
}
