// Transactional messages at the broker, on the virtual clock with a whole
// node (tests/actors/broker/broker_node_fixture.hpp): half messages on send,
// END_TRANSACTION's commit and rollback exactly once (also across a
// restart between the committed put and the op record).
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/broker/transaction_service.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/actors/broker/broker_node_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::broker_node_fixture {
  fixture() {
    create_topic("T");
  }

  send_message_request half_req(const std::string& body,
                                const std::string& group = "PG") {
    return broker_node_fixture::half_req(body, group, 1);
  }

  end_transaction_request end_req(const send_result& res,
                                  transaction_state state,
                                  const std::string& group = "PG") {
    end_transaction_request req;
    req.producer_group = group;
    req.tran_state_table_offset = res.queue_offset;
    int64_t phys = -1;
    auto stored = decode_offset_msg_id(res.offset_msg_id);
    REQUIRE(stored);
    phys = stored->offset;
    req.commit_log_offset = phys;
    req.state = static_cast<uint8_t>(state);
    req.msg_id = res.msg_id;
    req.transaction_id = res.msg_id;
    return req;
  }

  std::vector<std::string> buffers; // keeps decoded views valid

  /// Every record of one queue, read through the queue service.
  std::vector<record_view> records(const std::string& topic,
                                   int32_t queue = 0) {
    get_message_request req;
    req.topic = topic;
    req.queue_id = queue;
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

  std::vector<std::string> bodies(const std::string& topic, int32_t queue = 0) {
    std::vector<std::string> out;
    for (auto& rec : records(topic, queue))
      out.emplace_back(rec.body);
    return out;
  }

  nlohmann::json dump_of(const end_transaction_processor_actor& hdl) {
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }
};

using strings = std::vector<std::string>;

} // namespace

TEST_SUITE("broker.transaction") {
  TEST_CASE_FIXTURE(fixture,
                    "a half message waits in RMQ_SYS_TRANS_HALF_TOPIC, "
                    "invisible in its topic") {
    auto res = ask<send_result>(node.frontend, half_req("h1"));
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(res.queue_id, 1);     // the queue asked for
    CHECK_EQ(res.queue_offset, 0); // the half queue's offset
    CHECK(bodies("T", 1).empty());
    auto half = records(trans_half_topic);
    REQUIRE_EQ(half.size(), 1u);
    auto& rec = half.front();
    CHECK_EQ(rec.body, "h1");
    CHECK_EQ(rec.queue_id, 0);
    CHECK_EQ(find_property(rec.properties, property_real_topic), "T");
    CHECK_EQ(find_property(rec.properties, property_real_queue_id), "1");
    CHECK_EQ(find_property(rec.properties, property_transaction_id), "TXN1");
    CHECK_EQ(rec.sys_flag & sys_flag::transaction_mask, 0);
    int64_t phys = -1;
    auto stored = decode_offset_msg_id(res.offset_msg_id);
    REQUIRE(stored);
    phys = stored->offset;
    CHECK_EQ(phys, rec.phys_offset);
    auto second = ask<send_result>(node.frontend, half_req("h2"));
    CHECK_EQ(second.queue_offset, 1);
  }

  TEST_CASE_FIXTURE(fixture, "batches and delays refuse TRAN_MSG") {
    auto delayed = half_req("d");
    append_property(delayed.properties, property_delay, "2");
    CHECK_EQ(ask_error<send_result>(node.send, delayed), errc::message_illegal);
    auto timed = half_req("t");
    append_property(timed.properties, "TIMER_DELAY_SEC", "5");
    CHECK_EQ(ask_error<send_result>(node.send, timed), errc::message_illegal);
    // An old client's send-back (reconsume times and a level) is an
    // ordinary delayed message, as in RocketMQ.
    auto back = half_req("b");
    back.reconsume_times = 1;
    append_property(back.properties, property_delay, "1");
    ask<send_result>(node.send, back);
    CHECK(records(trans_half_topic).empty());
    CHECK_EQ(records(schedule_topic, 0).size(), 1u);
    std::string props;
    append_property(props, property_tran_msg, "true");
    send_message_request batch;
    batch.producer_group = "PG";
    batch.topic = "T";
    batch.queue_id = 0;
    batch.batch = true;
    auto body = encode_batch({{0, "x", props}, {0, "y", ""}});
    REQUIRE(body);
    batch.body = *body;
    CHECK_EQ(ask_error<send_result>(node.send, batch), errc::message_illegal);
    batch.body = *encode_batch({{0, "x", ""}});
    batch.sys_flag = sys_flag::transaction_prepared;
    CHECK_EQ(ask_error<send_result>(node.send, batch), errc::message_illegal);
  }

  TEST_CASE_FIXTURE(fixture, "rejectTransactionMessage refuses half "
                             "messages") {
    restart([](broker_options& o) { o.reject_transaction_message = true; });
    CHECK_EQ(ask_error<send_result>(node.send, half_req("h")),
             errc::no_permission);
  }

  TEST_CASE_FIXTURE(fixture, "a commit delivers once, a rollback never") {
    auto a = ask<send_result>(node.send, half_req("a"));
    auto b = ask<send_result>(node.send, half_req("b"));
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::commit));
    ask<caf::ok_atom>(node.frontend, end_req(b, transaction_state::rollback));
    auto real = records("T", 1);
    REQUIRE_EQ(real.size(), 1u);
    auto& msg = real.front();
    CHECK_EQ(msg.body, "a");
    CHECK_EQ(msg.sys_flag & sys_flag::transaction_mask,
             sys_flag::transaction_commit);
    CHECK(find_property(msg.properties, property_real_topic).empty());
    CHECK(find_property(msg.properties, property_tran_msg).empty());
    CHECK_EQ(find_property(msg.properties, property_uniq_key), "TXN1");
    CHECK_EQ(msg.prepared_transaction_offset,
             end_req(a, transaction_state::commit).commit_log_offset);
    // One op record per resolved half: tag "d", the half queue offset.
    auto ops = records(trans_op_half_topic);
    REQUIRE_EQ(ops.size(), 2u);
    CHECK_EQ(ops[0].body, "0");
    CHECK_EQ(ops[1].body, "1");
    CHECK_EQ(find_property(ops[0].properties, property_tags), "d");
    CHECK_EQ(find_property(ops[0].properties, property_transaction_id), "TXN1");
    // A second commit (a resend, or a check-back's answer) and an unknown:
    // nothing more is delivered.
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::commit));
    auto late = end_req(a, transaction_state::commit);
    late.from_transaction_check = true;
    ask<caf::ok_atom>(node.frontend, late);
    ask<caf::ok_atom>(node.frontend, end_req(b, transaction_state::unknown));
    CHECK_EQ(bodies("T", 1), strings{"a"});
    // A commit after the rollback is refused.
    CHECK_EQ(ask_error<caf::ok_atom>(node.frontend,
                                     end_req(b, transaction_state::commit)),
             errc::system_error);
    CHECK_EQ(bodies("T", 1), strings{"a"});
    auto d = dump_of(node.end_transaction);
    CHECK_EQ(d["commits"], 1);
    CHECK_EQ(d["repeated"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "two commits in flight at once deliver once") {
    auto a = ask<send_result>(node.send, half_req("a"));
    auto req = end_req(a, transaction_state::commit);
    // Both reach the processor before either is done.
    caf::anon_send(node.end_transaction, req);
    caf::anon_send(node.end_transaction, req);
    sched.run();
    CHECK_EQ(bodies("T", 1), strings{"a"});
  }

  TEST_CASE_FIXTURE(fixture, "an end that does not match its half message is "
                             "refused") {
    auto a = ask<send_result>(node.send, half_req("a"));
    auto wrong_group = end_req(a, transaction_state::commit, "OTHER");
    CHECK_EQ(ask_error<caf::ok_atom>(node.frontend, wrong_group),
             errc::system_error);
    auto wrong_offset = end_req(a, transaction_state::commit);
    wrong_offset.tran_state_table_offset = 5;
    CHECK_EQ(ask_error<caf::ok_atom>(node.frontend, wrong_offset),
             errc::system_error);
    // A normal message's offset is no half message.
    auto plain = send("T", "plain");
    auto not_half = end_req(plain, transaction_state::commit);
    not_half.tran_state_table_offset = plain.queue_offset;
    CHECK_EQ(ask_error<caf::ok_atom>(node.frontend, not_half),
             errc::system_error);
    CHECK_EQ(bodies("T", 1), strings{});
    CHECK(records(trans_op_half_topic).empty());
  }

  TEST_CASE_FIXTURE(fixture, "a commit after a restart between the put and "
                             "the op record is not delivered again") {
    auto a = ask<send_result>(node.send, half_req("a"));
    // Stage the crash: the committed message is in its queue, no op record.
    auto half = records(trans_half_topic);
    REQUIRE_EQ(half.size(), 1u);
    auto msg = from_half(half.front());
    REQUIRE(msg);
    ask<std::vector<put_result>>(node.store.commit_log, caf::put_atom::value,
                                 std::vector<store_message>{*msg});
    restart([](broker_options& o) {
      o.store.dedup_window = std::chrono::milliseconds{0};
    });
    CHECK_EQ(bodies("T", 1), strings{"a"});
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::commit));
    CHECK_EQ(bodies("T", 1), strings{"a"});
    CHECK_EQ(records(trans_op_half_topic).size(), 1u);
    CHECK_EQ(dump_of(node.end_transaction)["verified"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a commit after a rollback and a restart is "
                             "refused") {
    auto a = ask<send_result>(node.send, half_req("a"));
    auto b = ask<send_result>(node.send, half_req("b"));
    ask<caf::ok_atom>(node.frontend, end_req(a, transaction_state::rollback));
    // The processor remembers no outcome after a restart: only the op
    // records (through the check service) know that `a` ended.
    restart();
    CHECK_EQ(ask_error<caf::ok_atom>(node.frontend,
                                     end_req(a, transaction_state::commit)),
             errc::system_error);
    CHECK_EQ(bodies("T", 1), strings{});
    // `b` is still open: its commit goes out.
    ask<caf::ok_atom>(node.frontend, end_req(b, transaction_state::commit));
    CHECK_EQ(bodies("T", 1), strings{"b"});
    CHECK_EQ(dump_of(node.end_transaction)["refused"], 1);
  }
}
