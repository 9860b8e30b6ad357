// The transaction producer on the virtual clock, against fake brokers that
// store half messages and record END_TRANSACTION
// (tests/support/fake_broker.hpp), a fake route cache and directory
// (tests/actors/client/fake_client_instance.hpp), and the real heartbeat
// sender (the brokers' channel for check-backs).
#include "actors/client/producer/transaction_producer.hpp"

#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "actors/client/instance/client_heartbeat_service.hpp"
#include "actors/client/instance/latency_fault_service.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/actors/client/producer/scripted_transaction.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"

using namespace rmq;

namespace {

uint8_t u8(transaction_state x) {
  return static_cast<uint8_t>(x);
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_route_cache> routes
    = std::make_shared<test::fake_route_cache>();
  std::shared_ptr<test::fake_directory> dir
    = std::make_shared<test::fake_directory>();
  std::map<std::string, std::shared_ptr<test::fake_broker>> brokers;
  std::shared_ptr<test::scripted_listener> listener
    = std::make_shared<test::scripted_listener>();
  client_instance inst;
  transaction_producer_config cfg;
  transaction_producer_actor producer;

  fixture() {
    cfg.producer.group = "PG";
    cfg.producer.wall_clock = [] { return int64_t{1'700'000'000'000}; };
    cfg.producer.start_index = [] { return uint32_t{0}; };
    cfg.detached = false;
    // Two brokers of one queue each: a round robin alternates them.
    for (auto x : {"a", "b"}) {
      auto fake = std::make_shared<test::fake_broker>();
      brokers[x] = fake;
      dir->brokers[std::string{x} + ":10911"] = spawn(test::play_broker, fake);
    }
    routes->routes["TopicA"] = test::route_over({"broker-a", "broker-b"}, 1);
    inst.client_id = "10.0.0.9@test";
    inst.directory = spawn(test::play_directory, dir);
    inst.routes = spawn(test::play_route_cache, routes);
    client_heartbeat_config hc;
    hc.client_id = inst.client_id;
    hc.routes = inst.routes;
    hc.directory = inst.directory;
    hc.interval = caf::timespan{0};
    inst.heartbeats = spawn(client_heartbeat_service, hc);
    inst.faults = spawn(latency_fault_service, inst.config.faults);
  }

  void start() {
    auto hdl = spawn_transaction_producer_actor(sys, cfg, listener, inst);
    REQUIRE(hdl);
    producer = *hdl;
    track(producer);
    sched.run();
  }

  static client_message msg(std::string body) {
    client_message m;
    m.topic = "TopicA";
    m.tags = "TagA";
    m.body = std::move(body);
    return m;
  }

  transaction_send_result send(const std::string& body,
                               const std::string& arg = "arg") {
    return ask<transaction_send_result>(
      producer, send_atom::value, transaction_atom::value, msg(body), arg);
  }

  /// The broker ("a" or "b") that stored a send's half message.
  static std::string stored_at(const transaction_send_result& res) {
    return res.send.queue.broker_name == "broker-a" ? "a" : "b";
  }

  size_t ends_total() {
    return brokers["a"]->ends.size() + brokers["b"]->ends.size();
  }

  nlohmann::json dump(const caf::actor& hdl) {
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }

  nlohmann::json dump() {
    return dump(caf::actor_cast<caf::actor>(producer));
  }

  check_transaction_state check_of(const std::string& body,
                                   const std::string& group = "PG") {
    check_transaction_state chk;
    chk.producer_group = group;
    chk.broker_name = "broker-b";
    chk.broker_addr = "b:10911";
    chk.tran_state_table_offset = 42;
    chk.commit_log_offset = 98765;
    chk.msg_id = "AC1100010001000000000000000000AB";
    chk.transaction_id = chk.msg_id;
    chk.offset_msg_id = encode_offset_msg_id(
      test::fake_store_ip, test::fake_store_port, chk.commit_log_offset);
    chk.record = test::half_record("TopicA", body, chk.msg_id, group,
                                   chk.tran_state_table_offset,
                                   chk.commit_log_offset);
    return chk;
  }

  /// A check-back as a broker pushes it: to the client's channel.
  void push_check(const check_transaction_state& chk) {
    caf::anon_send(inst.heartbeats, chk);
    sched.run();
  }
};

} // namespace

TEST_SUITE("client.transaction_producer") {
  TEST_CASE_FIXTURE(fixture, "a commit sends the half message, runs the "
                             "listener, and commits at the storing broker") {
    start();
    auto res = send("commit", "order-7");
    CHECK_EQ(res.local_state, u8(transaction_state::commit));
    CHECK(res.local_error.empty());
    CHECK(res.end_error.empty());
    auto& b = *brokers[stored_at(res)];
    REQUIRE_EQ(b.sends.size(), 1u);
    // The half message: TRAN_MSG, PGROUP and the prepared sys flag.
    auto& half = b.sends.front();
    CHECK_EQ(test::property_of(half.properties, "TRAN_MSG"), "true");
    CHECK_EQ(test::property_of(half.properties, "PGROUP"), "PG");
    CHECK_EQ(half.sys_flag & sys_flag::transaction_mask,
             sys_flag::transaction_prepared);
    // The listener saw the message and the argument.
    REQUIRE_EQ(listener->executed.size(), 1u);
    CHECK_EQ(listener->executed[0].msg.body, "commit");
    CHECK_EQ(listener->executed[0].arg, "order-7");
    // One end request, at the broker that stored the half.
    REQUIRE_EQ(b.ends.size(), 1u);
    CHECK_EQ(ends_total(), 1u);
    auto& end = b.ends.front();
    CHECK_EQ(end.producer_group, "PG");
    CHECK_EQ(end.state, u8(transaction_state::commit));
    CHECK_FALSE(end.from_transaction_check);
    CHECK_EQ(end.tran_state_table_offset, res.send.queue_offset);
    CHECK_EQ(end.commit_log_offset,
             test::commit_offset_of(res.send.queue_offset));
    CHECK_EQ(end.msg_id, res.send.msg_id);
    CHECK_EQ(end.transaction_id, res.send.msg_id);
    CHECK_EQ(end.msg_id, test::property_of(half.properties, "UNIQ_KEY"));
    CHECK_EQ(dump()["committed"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "rollback and unknown end at the broker that "
                             "stored each half, with its offsets") {
    start();
    // Advance broker b's offsets so the two brokers' offsets differ.
    brokers["b"]->next_offset = 10;
    std::vector<transaction_send_result> results;
    for (auto body : {"rollback", "unknown", "rollback", "unknown"})
      results.push_back(send(body));
    std::set<std::string> used;
    for (size_t i = 0; i < results.size(); ++i) {
      auto& res = results[i];
      auto x = stored_at(res);
      used.insert(x);
      auto want = i % 2 == 0 ? transaction_state::rollback
                             : transaction_state::unknown;
      CHECK_EQ(res.local_state, u8(want));
      // Find this transaction's end request at its broker.
      auto& ends = brokers[x]->ends;
      auto j = std::find_if(ends.begin(), ends.end(), [&](auto& e) {
        return e.msg_id == res.send.msg_id;
      });
      REQUIRE(j != ends.end());
      CHECK_EQ(j->state, u8(want));
      CHECK_EQ(j->tran_state_table_offset, res.send.queue_offset);
      CHECK_EQ(j->commit_log_offset,
               test::commit_offset_of(res.send.queue_offset));
      CHECK_FALSE(j->from_transaction_check);
    }
    // Both brokers stored halves; each got only its own ends.
    CHECK_EQ(used.size(), 2u);
    CHECK_EQ(brokers["a"]->ends.size(), brokers["a"]->sends.size());
    CHECK_EQ(brokers["b"]->ends.size(), brokers["b"]->sends.size());
    CHECK_EQ(ends_total(), 4u);
    auto d = dump();
    CHECK_EQ(d["rolled_back"], 2);
    CHECK_EQ(d["unknown"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a failed half send never calls the listener "
                             "and returns the error") {
    start();
    for (auto& [x, b] : brokers) {
      b->how = test::fake_broker::mode::fail;
      b->error = make_error(errc::system_error, "disk full");
    }
    auto err = ask_error<transaction_send_result>(producer, send_atom::value,
                                                  transaction_atom::value,
                                                  msg("commit"), std::string{});
    CHECK(err);
    CHECK(listener->executed.empty());
    CHECK_EQ(ends_total(), 0u);
    // An invalid message fails before the network, the same way.
    auto bad = msg("commit");
    bad.topic = "";
    CHECK_EQ(ask_error<transaction_send_result>(producer, send_atom::value,
                                                transaction_atom::value, bad,
                                                std::string{}),
             make_error(errc::message_illegal));
    CHECK(listener->executed.empty());
    CHECK_EQ(ends_total(), 0u);
    CHECK_EQ(dump()["send_failed"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a half stored without SEND_OK is rolled back "
                             "without asking the listener") {
    start();
    for (auto& [x, b] : brokers)
      b->status = static_cast<uint8_t>(send_status::flush_disk_timeout);
    auto res = send("commit");
    CHECK_EQ(res.local_state, u8(transaction_state::rollback));
    CHECK(listener->executed.empty());
    auto& ends = brokers[stored_at(res)]->ends;
    REQUIRE_EQ(ends.size(), 1u);
    CHECK_EQ(ends[0].state, u8(transaction_state::rollback));
  }

  TEST_CASE_FIXTURE(fixture, "a listener that throws ends unknown") {
    start();
    auto res = send("throw");
    CHECK_EQ(res.local_state, u8(transaction_state::unknown));
    CHECK_EQ(res.local_error, "listener failure");
    auto& ends = brokers[stored_at(res)]->ends;
    REQUIRE_EQ(ends.size(), 1u);
    CHECK_EQ(ends[0].state, u8(transaction_state::unknown));
    // The worker survives: the next transaction runs.
    CHECK_EQ(send("commit").local_state, u8(transaction_state::commit));
  }

  TEST_CASE_FIXTURE(fixture, "a delay level is ignored for half messages") {
    start();
    auto m = msg("commit");
    m.delay_level = 3;
    auto res = ask<transaction_send_result>(
      producer, send_atom::value, transaction_atom::value, m, std::string{});
    auto& half = brokers[stored_at(res)]->sends.front();
    CHECK(test::property_of(half.properties, "DELAY").empty());
    CHECK_EQ(res.local_state, u8(transaction_state::commit));
  }

  TEST_CASE_FIXTURE(fixture, "a check-back reaches the listener and its "
                             "answer goes to the asking broker") {
    start();
    for (auto [body, want] :
         {std::pair{"commit", transaction_state::commit},
          std::pair{"rollback", transaction_state::rollback},
          std::pair{"unknown", transaction_state::unknown},
          std::pair{"throw", transaction_state::unknown}}) {
      CAPTURE(body);
      brokers["b"]->ends.clear();
      auto chk = check_of(body);
      push_check(chk);
      REQUIRE_FALSE(listener->checked.empty());
      auto& seen = listener->checked.back();
      // The listener sees the real topic and queue, not the half topic.
      CHECK_EQ(seen.topic, "TopicA");
      CHECK_EQ(seen.queue_id, 3);
      CHECK_EQ(seen.body, body);
      CHECK_EQ(seen.msg_id, chk.msg_id);
      REQUIRE_EQ(brokers["b"]->ends.size(), 1u);
      CHECK(brokers["a"]->ends.empty());
      auto& end = brokers["b"]->ends.front();
      CHECK(end.from_transaction_check);
      CHECK_EQ(end.state, u8(want));
      CHECK_EQ(end.producer_group, "PG");
      CHECK_EQ(end.tran_state_table_offset, 42);
      CHECK_EQ(end.commit_log_offset, 98765);
      CHECK_EQ(end.msg_id, chk.msg_id);
      CHECK_EQ(end.transaction_id, chk.transaction_id);
    }
    CHECK(listener->executed.empty());
    CHECK_EQ(dump()["checks_answered"], 4);
    CHECK_EQ(
      dump(caf::actor_cast<caf::actor>(inst.heartbeats))["checks_forwarded"],
      4);
  }

  TEST_CASE_FIXTURE(fixture, "check-backs for another group are not "
                             "answered") {
    start();
    push_check(check_of("commit", "OTHER_GROUP"));
    CHECK(listener->checked.empty());
    CHECK_EQ(ends_total(), 0u);
    auto hb = dump(caf::actor_cast<caf::actor>(inst.heartbeats));
    CHECK_EQ(hb["checks_dropped"], 1);
    CHECK_EQ(hb["transaction_producers"]["PG"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "an undecodable half is dropped, the queue of "
                             "check-backs is bounded") {
    cfg.check_request_hold_max = 0;
    start();
    auto bad = check_of("commit");
    bad.record = "garbage";
    push_check(bad);
    CHECK(listener->checked.empty());
    CHECK_EQ(ends_total(), 0u);
    CHECK_EQ(dump()["checks_undecodable"], 1);
    // Three at once, none waiting allowed: the first runs, the others are
    // dropped before the worker answers it.
    for (int i = 0; i < 3; ++i)
      caf::anon_send(producer, check_of("commit"));
    sched.run();
    auto d = dump();
    CHECK_EQ(d["checks_answered"], 1);
    CHECK_EQ(d["checks_dropped"], 2);
    CHECK_EQ(brokers["b"]->ends.size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "shutdown stops the producer and its "
                             "subscription; the group unregisters") {
    start();
    send("commit");
    CHECK_EQ(ask<caf::ok_atom>(producer, shutdown_atom::value),
             caf::ok_atom::value);
    sched.run();
    auto hb = dump(caf::actor_cast<caf::actor>(inst.heartbeats));
    CHECK(hb["transaction_producers"].empty());
    CHECK(hb["producer_groups"].empty());
    // A check-back now finds no producer.
    push_check(check_of("commit"));
    CHECK(listener->checked.empty());
  }

  TEST_CASE_FIXTURE(fixture, "a producer needs a group and a listener") {
    CHECK_FALSE(spawn_transaction_producer_actor(sys, cfg, nullptr, inst));
    cfg.producer.group = "";
    CHECK_FALSE(spawn_transaction_producer_actor(sys, cfg, listener, inst));
  }
}
