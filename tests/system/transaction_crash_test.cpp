// Transactional messages through a real broker process that is killed
// with SIGKILL in the middle: half messages committed or rolled back by
// their producer (some twice), the rest only by check-back (each needs
// three checks: the first two are answered "unknown"). After the restart the check
// service rebuilds its pending set from the store and finishes: exactly
// the committed messages are in their queue, each once, none rolled back.
#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "caf/event_based_actor.hpp"
#include "caf/send.hpp"

#include "messages/broker/transaction.hpp"
#include "messages/common/errors.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicTxn";

// The outcome a body stands for: "c..." commits, "r..." rolls back.
transaction_state outcome_of(std::string_view body) {
  return body.substr(0, 1) == "c" ? transaction_state::commit
                                  : transaction_state::rollback;
}

struct producer_state {
  std::mutex mtx;
  /// Checks seen per UNIQ_KEY.
  std::map<std::string, int> checks;
  std::atomic<int> total{0};
};

// The producer's channel: heartbeats the broker it is given and answers
// each check-back one-way, "unknown" the first two times a transaction
// is checked.
caf::behavior channel(caf::event_based_actor* self,
                      std::shared_ptr<producer_state> st) {
  auto front = std::make_shared<broker_actor>();
  return {
    [=](caf::put_atom, broker_actor hdl) {
      *front = hdl;
      self
        ->request(hdl, std::chrono::seconds{5},
                  client_heartbeat{"127.0.0.1@txn", {"PG"}, {}})
        .then([](caf::ok_atom) {}, [](caf::error&) {});
    },
    [=](const check_transaction_state& chk) {
      auto recs = decode_records(chk.record);
      if (!recs || recs->size() != 1 || !*front)
        return;
      int seen = 0;
      {
        std::lock_guard<std::mutex> guard{st->mtx};
        seen = ++st->checks[chk.msg_id];
      }
      ++st->total;
      end_transaction_request end;
      end.producer_group = chk.producer_group;
      end.tran_state_table_offset = chk.tran_state_table_offset;
      end.commit_log_offset = chk.commit_log_offset;
      end.state = static_cast<uint8_t>(seen <= 2
                                         ? transaction_state::unknown
                                         : outcome_of(recs->front().body));
      end.from_transaction_check = true;
      end.msg_id = chk.msg_id;
      end.transaction_id = chk.transaction_id;
      caf::anon_send(*front, end);
    },
  };
}

send_result send_half(remote_client& client, const broker_actor& front,
                      const std::string& body, int n) {
  send_message_request req;
  req.producer_group = "PG";
  req.topic = topic;
  req.queue_id = 0;
  req.body = body;
  req.born_timestamp = system_clock_ms();
  append_property(req.properties, property_tran_msg, "true");
  append_property(req.properties, property_producer_group, "PG");
  append_property(req.properties, property_uniq_key,
                  "TXNSYS" + std::to_string(n));
  auto res = client.ask<send_result>(front, std::move(req));
  REQUIRE_MESSAGE(res, describe(res.error()));
  return *res;
}

void end(remote_client& client, const broker_actor& front,
         const send_result& res, transaction_state state) {
  end_transaction_request req;
  req.producer_group = "PG";
  req.tran_state_table_offset = res.queue_offset;
  auto stored = decode_offset_msg_id(res.offset_msg_id);
  REQUIRE(stored);
  req.commit_log_offset = stored->offset;
  req.state = static_cast<uint8_t>(state);
  req.msg_id = res.msg_id;
  auto ok = client.ask<caf::ok_atom>(front, std::move(req));
  REQUIRE_MESSAGE(ok, describe(ok.error()));
}

} // namespace

TEST_SUITE("system.transaction.crash") {
  TEST_CASE("SIGKILL in the middle: exactly the committed transactions are "
            "delivered, each once") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    how.flush = "SYNC_FLUSH";
    how.extra.insert(how.extra.end(), {"--transaction-check-interval-ms=500",
                                       "--transaction-timeout-ms=300"});
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, topic, 1);
    auto st = std::make_shared<producer_state>();
    auto producer = client.sys.spawn(channel, st);
    caf::anon_send(producer, caf::put_atom::value, front);

    std::multiset<std::string> want;
    constexpr int n = 60;
    for (int i = 0; i < n; ++i) {
      auto body = std::string{i % 2 == 0 ? "c" : "r"} + std::to_string(i);
      auto res = send_half(client, front, body, i);
      if (outcome_of(body) == transaction_state::commit)
        want.insert(body);
      // A third ends by itself (a few twice, as a producer's resend);
      // the rest waits for check-backs.
      if (i % 3 == 0) {
        end(client, front, res, outcome_of(body));
        if (i % 9 == 0)
          end(client, front, res, outcome_of(body));
      }
    }
    // Every open transaction checked once ("unknown"); none resolved yet.
    CHECK(wait_until([&] { return st->total.load() >= n - n / 3; }, 20s, 20ms));
    CHECK_EQ(broker_status(client, front, "transactionHalfPending"),
             std::to_string(n - n / 3));
    broker.proc->signal(SIGKILL);
    CHECK_EQ(broker.proc->wait(), 128 + SIGKILL);
    restart_broker_node(broker, how);
    front = connect_broker(client, broker.port);
    caf::anon_send(producer, caf::put_atom::value, front);
    CHECK(wait_until(
      [&] {
        return broker_status(client, front, "transactionHalfPending") == "0";
      },
      30s, 50ms));
    auto got_list = pull_all(client, front, topic, 0);
    std::multiset<std::string> got(got_list.begin(), got_list.end());
    CHECK_EQ(got.size(), want.size());
    std::string diff;
    for (auto& x : got)
      if (got.count(x) != want.count(x))
        diff += " got " + x + " x" + std::to_string(got.count(x));
    for (auto& x : want)
      if (got.count(x) == 0)
        diff += " missing " + x;
    CHECK_MESSAGE(got == want, diff);
    caf::anon_send_exit(producer, caf::exit_reason::user_shutdown);
  }
}
