// The send processor on the deterministic coordinator, in front of the real
// store actors on a temp dir and a small stand-in for the topic config
// table: statuses, ids, queue choice, every refusal, back-pressure, the
// flush-timeout mapping and the dump.
#include "actors/broker/processor/send_processor.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/broker/store/store_actors.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/timer_message.hpp"
#include "tests/actors/broker/commit_log_stand_in.hpp"
#include "tests/actors/broker/topic_table_stub.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

// -- a stand-in commit log that stores nothing and reports one error ----------

commit_log_writer_actor::behavior_type
fake_commit_log(commit_log_writer_actor::pointer self, errc per_message) {
  return test::commit_log_stand_in(
    self,
    [per_message](commit_log_writer_actor::pointer,
                  std::vector<store_message>& batch)
      -> caf::result<std::vector<put_result>> {
      std::vector<put_result> res;
      for (size_t i = 0; i < batch.size(); ++i) {
        put_result r;
        r.error = make_error(per_message, "stand-in");
        r.queue_offset = static_cast<int64_t>(i);
        r.phys_offset = static_cast<int64_t>(100 * i);
        res.push_back(std::move(r));
      }
      return res;
    });
}

// -- a flush actor whose fdatasync never returns ------------------------------

struct stalled_flusher_state {
  std::vector<caf::typed_response_promise<int64_t>> pending;
  static const char* name;
};

const char* stalled_flusher_state::name = "stalled_flusher";

flush_service_actor::behavior_type stalled_flusher(
  flush_service_actor::stateful_pointer<stalled_flusher_state> self) {
  return {
    [=](flush_atom, int64_t) -> caf::result<int64_t> {
      auto rp = self->make_response_promise<int64_t>();
      self->state.pending.push_back(rp);
      return rp;
    },
    [=](dump_atom) { return std::string{"{}"}; },
  };
}

topic_config make_topic(std::string name, int32_t read, int32_t write,
                        int32_t perm = perm::read_write) {
  topic_config tc;
  tc.topic_name = std::move(name);
  tc.read_queue_nums = read;
  tc.write_queue_nums = write;
  tc.perm = perm;
  return tc;
}

constexpr uint32_t store_ip = 0x0A000005; // 10.0.0.5
constexpr uint32_t store_port = 10911;

struct fixture : test::deterministic_fixture {
  test::temp_dir dir;
  storage::store_config store_cfg = test::small_config(dir.path());
  std::shared_ptr<storage::message_store> store;
  store_actors actors;
  topic_config_table_actor topics;
  send_processor_actor proc;
  send_processor_options opts;

  fixture() {
    store_cfg.store_ip = store_ip;
    store_cfg.store_port = store_port;
    opts.cluster_name = "ClusterX";
    opts.broker_name = "broker-a";
    opts.store_ip = store_ip;
    opts.store_port = store_port;
    opts.max_message_size = store_cfg.max_message_size;
    opts.seed = test::test_seed();
    opts.pid = 77;
    opts.wall_clock = [] { return int64_t{1'796'083'200'000}; };
  }

  ~fixture() {
    // Stop the writer (it closes the store) before `dir` goes.
    if (actors.commit_log)
      caf::anon_send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
    sched.run();
  }

  void start() {
    store = test::open_store(store_cfg);
    actors = spawn_store_actors(sys, store, false, 1s);
    track(actors.commit_log);
    track(actors.flusher);
    track(actors.queue_service);
    sched.run();
    start_with(actors.commit_log);
  }

  void start_with(commit_log_writer_actor log, bool silent_table = false) {
    test::topic_table_stub_options topts;
    for (auto tc : {make_topic("TopicA", 4, 4), make_topic("Narrow", 8, 2),
                    make_topic("ReadOnly", 4, 4, perm::read),
                    make_topic("NoQueues", 0, 0)})
      topts.topics[tc.topic_name] = tc;
    topts.silent = silent_table;
    topics = spawn(test::topic_table_stub, topts);
    proc = spawn(send_processor, opts, topics, log);
  }

  static send_message_request request(std::string topic, std::string body,
                                      int32_t queue_id = 0) {
    send_message_request req;
    req.producer_group = "PG";
    req.topic = std::move(topic);
    req.queue_id = queue_id;
    req.born_timestamp = 1'700'000'000'000;
    req.born_ip = 0x0A000001;
    req.born_port = 5000;
    req.body = std::move(body);
    return req;
  }

  send_result send(send_message_request req) {
    return ask<send_result>(proc, std::move(req));
  }

  caf::error refuse(send_message_request req) {
    return ask_error<send_result>(proc, std::move(req));
  }

  std::vector<record_view> read(const std::string& topic, int32_t queue_id,
                                get_message_result& res) {
    get_message_request req{topic, queue_id, 0, 1000, 1 << 20, {}};
    res = ask<get_message_result>(actors.queue_service, req);
    auto recs = decode_pulled(res);
    REQUIRE(recs);
    return *recs;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(proc, dump_atom::value));
  }
};

std::string props_with_uniq(std::string id) {
  std::string props;
  append_property(props, "TAGS", "A");
  append_property(props, property_uniq_key, id);
  return props;
}

} // namespace

TEST_SUITE("broker.send_processor") {
  TEST_CASE_FIXTURE(fixture, "a send is stored: SEND_OK, offsets, ids and the "
                             "CLUSTER property") {
    start();
    auto req = request("TopicA", "hello", 1);
    req.properties = props_with_uniq("0A0000011092DEADBEEF0036EE850000");
    auto a = send(req);
    CHECK_EQ(a.status, static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(a.queue_id, 1);
    CHECK_EQ(a.queue_offset, 0);
    CHECK_EQ(a.msg_id, "0A0000011092DEADBEEF0036EE850000");
    REQUIRE_EQ(a.queue_offsets.size(), 1u);
    auto b = send(request("TopicA", "world", 1));
    CHECK_EQ(b.queue_offset, 1);
    // The broker made the missing UNIQ_KEY from its own host.
    auto made = decode_uniq_key(b.msg_id);
    REQUIRE(made);
    CHECK_EQ(made->ip, store_ip);
    CHECK_EQ(made->pid, 77);
    // The offsetMsgId names the store host and the record's phys offset.
    get_message_result res;
    auto recs = read("TopicA", 1, res);
    REQUIRE_EQ(recs.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      auto id = decode_offset_msg_id(i == 0 ? a.offset_msg_id
                                            : b.offset_msg_id);
      REQUIRE(id);
      CHECK_EQ(id->ip, store_ip);
      CHECK_EQ(id->port, store_port);
      CHECK_EQ(id->offset, res.phys_offsets[i]);
      CHECK_EQ(find_property(recs[i].properties, property_cluster), "ClusterX");
    }
    CHECK_EQ(recs[0].body, "hello");
    CHECK_EQ(find_property(recs[0].properties, "TAGS"), "A");
    CHECK_EQ(find_property(recs[1].properties, property_uniq_key), b.msg_id);
  }

  TEST_CASE_FIXTURE(fixture, "a timed message waits in the timer topic; "
                             "over timerMaxDelaySec it is refused") {
    opts.timer.max_delay_sec = 3600;
    start();
    auto req = request("TopicA", "later", 2);
    append_property(req.properties, property_timer_delay_ms, "90500");
    auto a = send(req);
    CHECK_EQ(a.status, static_cast<uint8_t>(send_status::send_ok));
    // The queue asked for, as for a delay level.
    CHECK_EQ(a.queue_id, 2);
    get_message_result res;
    auto recs = read(timer_topic, 0, res);
    REQUIRE_EQ(recs.size(), 1u);
    CHECK_EQ(find_property(recs[0].properties, property_real_topic), "TopicA");
    CHECK_EQ(find_property(recs[0].properties, property_real_queue_id), "2");
    // Reckoned from the broker's clock (1'796'083'200'000), rounded up.
    CHECK_EQ(find_property(recs[0].properties, property_timer_out_ms),
             "1796083291000");
    CHECK(read("TopicA", 2, res).empty());
    CHECK_EQ(dump()["timed"], 1);
    auto far = request("TopicA", "too late", 2);
    append_property(far.properties, property_timer_delay_sec, "3601");
    auto err = refuse(far);
    CHECK_EQ(err, errc::message_illegal);
    auto bad = request("TopicA", "nan", 2);
    append_property(bad.properties, property_timer_deliver_ms, "x");
    CHECK_EQ(refuse(bad), errc::message_illegal);
    // Due already: stored as it is.
    auto due = request("TopicA", "now", 2);
    append_property(due.properties, property_timer_deliver_ms, "1796083200000");
    send(due);
    CHECK_EQ(read("TopicA", 2, res).size(), 1u);
    // A batch entry with a timer is refused.
    std::vector<batch_entry> entries{{0, "a", {}}, {0, "b", {}}};
    append_property(entries[1].properties, property_timer_delay_ms, "5000");
    auto batch = request("TopicA", "", 2);
    batch.batch = true;
    batch.body = encode_batch(entries).value();
    CHECK_EQ(refuse(batch), errc::message_illegal);
  }

  TEST_CASE_FIXTURE(fixture, "a client's CLUSTER property is overwritten") {
    start();
    auto req = request("TopicA", "x", 0);
    append_property(req.properties, property_cluster, "Fake");
    send(req);
    get_message_result res;
    auto recs = read("TopicA", 0, res);
    REQUIRE_EQ(recs.size(), 1u);
    CHECK_EQ(find_property(recs[0].properties, property_cluster), "ClusterX");
  }

  TEST_CASE_FIXTURE(fixture, "a batch gets one entry per message with "
                             "consecutive queue offsets") {
    start();
    send(request("TopicA", "before", 2));
    std::vector<batch_entry> entries(3);
    for (int i = 0; i < 3; ++i) {
      entries[i].body = "b" + std::to_string(i);
      entries[i].flag = i;
    }
    entries[1].properties = props_with_uniq("0A0000011092DEADBEEF0036EE850001");
    auto req = request("TopicA", encode_batch(entries).value(), 2);
    req.batch = true;
    append_property(req.properties, "WAIT", "true");
    auto res = send(req);
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
    REQUIRE_EQ(res.queue_offsets.size(), 3u);
    auto es = entries_of(res);
    REQUIRE_EQ(es.size(), 3u);
    for (int i = 0; i < 3; ++i)
      CHECK_EQ(es[i].queue_offset, 1 + i);
    CHECK_EQ(res.queue_offset, 1);
    CHECK_EQ(res.queue_id, 2);
    CHECK_EQ(es[1].msg_id, "0A0000011092DEADBEEF0036EE850001");
    CHECK_NE(es[0].msg_id, es[2].msg_id);
    CHECK_EQ(res.msg_id,
             es[0].msg_id + "," + es[1].msg_id + "," + es[2].msg_id);
    CHECK_EQ(res.offset_msg_id, es[0].offset_msg_id + "," + es[1].offset_msg_id
                                  + "," + es[2].offset_msg_id);
    get_message_result got;
    auto recs = read("TopicA", 2, got);
    REQUIRE_EQ(recs.size(), 4u);
    for (int i = 0; i < 3; ++i) {
      auto& rec = recs[1 + i];
      CHECK_EQ(rec.body, "b" + std::to_string(i));
      CHECK_EQ(rec.flag, i);
      CHECK_EQ(find_property(rec.properties, property_cluster), "ClusterX");
      CHECK_EQ(find_property(rec.properties, "WAIT"), "true");
      CHECK_EQ(decode_offset_msg_id(es[i].offset_msg_id)->offset,
               got.phys_offsets[1 + i]);
    }
  }

  TEST_CASE_FIXTURE(fixture, "batch entries get one CLUSTER and a UNIQ_KEY "
                             "each, bodies as sent") {
    start();
    std::vector<batch_entry> entries(4);
    for (int i = 0; i < 4; ++i)
      entries[i].body = std::string(100 + i, static_cast<char>('a' + i));
    append_property(entries[0].properties, property_cluster, "Fake");
    append_property(entries[0].properties, "TAGS", "T");
    // Named like CLUSTER, but another property: kept.
    append_property(entries[1].properties, "XCLUSTER", "keep");
    // The first "CLUSTER" in the text is not a pair of it; a later one is.
    append_property(entries[2].properties, "CLUSTERS", "keep");
    append_property(entries[2].properties, property_cluster, "");
    entries[3].properties = props_with_uniq("0A0000011092DEADBEEF0036EE850002");
    auto req = request("TopicA", encode_batch(entries).value(), 1);
    req.batch = true;
    auto res = send(req);
    auto es = entries_of(res);
    REQUIRE_EQ(es.size(), 4u);
    get_message_result got;
    auto recs = read("TopicA", 1, got);
    REQUIRE_EQ(recs.size(), 4u);
    std::string joined;
    for (int i = 0; i < 4; ++i) {
      auto& rec = recs[i];
      CHECK_EQ(rec.body, entries[i].body);
      CHECK_EQ(find_property(rec.properties, property_cluster), "ClusterX");
      auto pairs = decode_properties(rec.properties);
      REQUIRE(pairs);
      auto clusters = std::count_if(pairs->begin(), pairs->end(),
                                    [](const auto& kv) {
                                      return kv.first == property_cluster;
                                    });
      CHECK_EQ(clusters, 1);
      CHECK_EQ(find_property(rec.properties, property_uniq_key), es[i].msg_id);
      CHECK_EQ(es[i].msg_id.size(), msg_id_size);
      joined += (i > 0 ? "," : "") + es[i].msg_id;
    }
    CHECK_EQ(find_property(recs[0].properties, "TAGS"), "T");
    CHECK_EQ(find_property(recs[1].properties, "XCLUSTER"), "keep");
    CHECK_EQ(find_property(recs[2].properties, "CLUSTERS"), "keep");
    CHECK_EQ(es[3].msg_id, "0A0000011092DEADBEEF0036EE850002");
    CHECK_EQ(res.msg_id, joined);
  }

  TEST_CASE_FIXTURE(fixture, "the lookup carries the auto-create settings") {
    start();
    auto req = request("TopicA", "m");
    req.default_topic = "MyDefault";
    req.default_queue_nums = 2;
    send(req);
    auto last = nlohmann::json::parse(
      ask<std::string>(topics, dump_atom::value))["last"];
    CHECK_EQ(last["topic"], "TopicA");
    CHECK_EQ(last["default_topic"], "MyDefault");
    CHECK_EQ(last["default_queue_nums"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a stalled topic table is a system_error after "
                             "table_timeout, and the processor goes on") {
    start_with(actors.commit_log, true);
    auto rh = self->request(proc, caf::infinite, request("TopicA", "m"));
    sched.run();
    CHECK(self->mailbox().empty());
    advance_time(3500ms, 500ms);
    REQUIRE_FALSE(self->mailbox().empty());
    caf::error err;
    rh.receive([&](send_result&) { FAIL("expected an error"); },
               [&](caf::error& x) { err = std::move(x); });
    CHECK(err == errc::system_error);
    CHECK_NE(error_detail(err).find("timeout"), std::string::npos);
    CHECK_EQ(dump()["refused"], 1);
    // Still serving: the broker permission answers.
    CHECK_EQ(ask<int32_t>(proc, broker_perm_atom::value, perm::read_write),
             perm::read_write);
  }

  TEST_CASE_FIXTURE(fixture, "a retried send with the same UNIQ_KEY answers "
                             "the first copy") {
    start();
    auto req = request("TopicA", "once", 0);
    req.properties = props_with_uniq("0A0000011092DEADBEEF0036EE850009");
    auto a = send(req);
    auto b = send(req);
    CHECK_EQ(a.queue_offset, b.queue_offset);
    CHECK_EQ(a.offset_msg_id, b.offset_msg_id);
    get_message_result res;
    CHECK_EQ(read("TopicA", 0, res).size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "queue id < 0 picks a random writable queue") {
    start();
    std::set<int32_t> used;
    for (int i = 0; i < 40; ++i) {
      auto res = send(request("Narrow", "m", -1));
      CHECK_GE(res.queue_id, 0);
      CHECK_LT(res.queue_id, 2); // 2 write queues of 8 read queues
      used.insert(res.queue_id);
    }
    CHECK_EQ(used.size(), 2u);
    // A queue id below max(read, write) is accepted, as RocketMQ does.
    CHECK_EQ(send(request("Narrow", "m", 7)).queue_id, 7);
  }

  TEST_CASE_FIXTURE(fixture, "refusals carry RocketMQ's codes") {
    start();
    CHECK(refuse(request("TopicA", "m", 4)) == errc::invalid_parameter);
    CHECK(refuse(request("Unknown", "m")) == errc::topic_not_exist);
    CHECK(refuse(request("ReadOnly", "m")) == errc::no_permission);
    CHECK(refuse(request("NoQueues", "m", -1)) == errc::no_permission);
    CHECK(refuse(request("SCHEDULE_TOPIC_XXXX", "m")) == errc::no_permission);
    CHECK(refuse(request("bad topic", "m")) == errc::invalid_parameter);
    CHECK(refuse(request("TopicA", "")) == errc::message_illegal);
    auto big = std::string(store_cfg.max_message_size + 1, 'x');
    auto err = refuse(request("TopicA", big));
    CHECK(err == errc::message_illegal);
    CHECK_NE(error_detail(err).find("exceeds"), std::string::npos);
    auto bad_props = request("TopicA", "m");
    bad_props.properties = std::string(max_properties_size + 1, 'p');
    CHECK(refuse(bad_props) == errc::message_illegal);
    auto bad_delay = request("TopicA", "m");
    append_property(bad_delay.properties, property_delay, "x");
    CHECK(refuse(bad_delay) == errc::message_illegal);
    // Nothing was stored, and the checks before the lookup cost no lookup.
    CHECK_EQ(store->write_offset(), 0);
    auto d = dump();
    CHECK_EQ(d["refused"], 10);
    CHECK_EQ(d["stored_messages"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "bad batches are refused") {
    start();
    auto req = request("TopicA", "garbage!", 0);
    req.batch = true;
    CHECK(refuse(req) == errc::message_illegal);
    std::vector<batch_entry> entries(2);
    entries[0].body = "a";
    entries[1].body = "b";
    append_property(entries[1].properties, property_delay, "3");
    req.body = encode_batch(entries).value();
    auto err = refuse(req);
    CHECK(err == errc::message_illegal);
    CHECK_NE(error_detail(err).find("delay"), std::string::npos);
    // Each key the entries are checked for, found in one walk.
    auto refused_for = [&](std::string props, const char* what) {
      entries[1].properties = std::move(props);
      req.body = encode_batch(entries).value();
      auto e = refuse(req);
      CHECK(e == errc::message_illegal);
      CHECK_NE(error_detail(e).find(what), std::string::npos);
    };
    std::string props;
    append_property(props, "KEYS", "k");
    append_property(props, property_tran_msg, "true");
    refused_for(props, "transaction");
    for (auto key : {property_timer_deliver_ms, property_timer_delay_sec,
                     property_timer_delay_ms}) {
      props.clear();
      append_property(props, key, "5000");
      refused_for(props, "timers");
    }
    refused_for("KEYS\x01k\x02novalue\x02", "malformed property");
    // The first of two DELAY pairs counts, as find_property's.
    props.clear();
    append_property(props, property_delay, "x");
    append_property(props, property_delay, "0");
    refused_for(props, "delay level 'x'");
    entries[1].properties.clear();
    entries[1].body.clear();
    req.body = encode_batch(entries).value();
    err = refuse(req);
    CHECK(err == errc::message_illegal);
    CHECK_NE(error_detail(err).find("entry 1"), std::string::npos);
    entries[1].body = "b";
    req.body = encode_batch(entries).value();
    req.topic = "%RETRY%PG";
    CHECK(refuse(req) == errc::message_illegal);
    CHECK_EQ(store->write_offset(), 0);
  }

  TEST_CASE_FIXTURE(fixture, "a wiped broker refuses writes until write perm "
                             "is back") {
    start();
    CHECK_EQ(ask<int32_t>(proc, broker_perm_atom::value, perm::read),
             perm::read_write);
    auto err = refuse(request("TopicA", "m"));
    CHECK(err == errc::no_permission);
    CHECK_NE(error_detail(err).find("broker-a"), std::string::npos);
    CHECK(ask_error<int32_t>(proc, broker_perm_atom::value, 9)
          == errc::invalid_parameter);
    CHECK_EQ(ask<int32_t>(proc, broker_perm_atom::value, perm::read_write),
             perm::read);
    CHECK_EQ(send(request("TopicA", "m")).queue_offset, 0);
    CHECK_EQ(dump()["broker_permission"], perm::read_write);
  }

  TEST_CASE_FIXTURE(fixture, "a slave refuses every send") {
    opts.slave = true;
    start();
    auto err = refuse(request("TopicA", "m"));
    CHECK(err == errc::service_not_available);
    CHECK_NE(error_detail(err).find("slave"), std::string::npos);
    CHECK_EQ(dump()["slave"], true);
  }

  TEST_CASE_FIXTURE(fixture, "a busy store answers system_busy") {
    store_cfg.pending_high_watermark = 150;
    store_cfg.pending_low_watermark = 50;
    start();
    send(request("TopicA", std::string(200, 'x')));
    auto err = refuse(request("TopicA", "m"));
    CHECK(err == errc::system_busy);
    auto d = dump();
    CHECK_EQ(d["busy"], 1);
    CHECK_EQ(d["store_failures"], 1);
    advance_time(10500ms, 500ms); // the thorough flush drains the backlog
    CHECK_EQ(send(request("TopicA", "m")).queue_offset, 1);
  }

  TEST_CASE_FIXTURE(fixture, "a flush timeout is FLUSH_DISK_TIMEOUT with the "
                             "message stored") {
    start_with(spawn(fake_commit_log, errc::flush_disk_timeout));
    auto res = send(request("TopicA", "m"));
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::flush_disk_timeout));
    CHECK_EQ(res.queue_offset, 0);
    CHECK_EQ(dump()["flush_timeouts"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a sync flush slower than syncFlushTimeout is "
                             "FLUSH_DISK_TIMEOUT with the offsets") {
    store_cfg.flush = storage::flush_mode::sync;
    store = test::open_store(store_cfg);
    auto flusher = spawn(stalled_flusher);
    actors.queue_service = spawn(queue_service, store, caf::timespan{1s},
                                 queue_service_actor{});
    actors.commit_log = spawn(commit_log_writer, store, flusher,
                              actors.queue_service, warm_service_actor{});
    start_with(actors.commit_log);
    auto rh = self->request(proc, caf::infinite, request("TopicA", "slow"));
    sched.run();
    CHECK(self->mailbox().empty()); // waits for the fdatasync
    advance_time(4500ms, 500ms);
    CHECK(self->mailbox().empty()); // not yet 5 s
    advance_time(1000ms, 500ms);
    REQUIRE_FALSE(self->mailbox().empty());
    send_result res;
    rh.receive([&](send_result& x) { res = std::move(x); },
               [&](caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::flush_disk_timeout));
    CHECK_EQ(res.queue_offset, 0);
    CHECK_EQ(decode_offset_msg_id(res.offset_msg_id)->offset, 0);
    auto d = nlohmann::json::parse(
      ask<std::string>(actors.commit_log, dump_atom::value));
    CHECK_EQ(d["flush_timeouts"], 1);
    CHECK_EQ(d["waiting_batches"], 0);
    CHECK_EQ(dump()["flush_timeouts"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "per-message store errors are mapped") {
    SUBCASE("disk full") {
      start_with(spawn(fake_commit_log, errc::disk_full));
      CHECK(refuse(request("TopicA", "m")) == errc::service_not_available);
    }
    SUBCASE("properties too large") {
      start_with(spawn(fake_commit_log, errc::properties_size_exceeded));
      CHECK(refuse(request("TopicA", "m")) == errc::message_illegal);
    }
    SUBCASE("I/O error") {
      start_with(spawn(fake_commit_log, errc::io_error));
      CHECK(refuse(request("TopicA", "m")) == errc::system_error);
    }
  }

  TEST_CASE("store and table errors map to RocketMQ's response codes") {
    CHECK(to_send_error(make_error(errc::queue_full)) == errc::system_busy);
    CHECK(to_send_error(make_error(errc::not_ready))
          == errc::service_not_available);
    CHECK(to_send_error(make_error(errc::topic_not_exist))
          == errc::topic_not_exist);
    auto timeout = to_send_error(caf::make_error(caf::sec::request_timeout));
    CHECK(timeout == errc::system_error);
    CHECK_FALSE(error_detail(timeout).empty());
    CHECK_FALSE(to_send_error(caf::error{}));
  }

  TEST_CASE_FIXTURE(fixture, "the dump shows settings and counters") {
    start();
    send(request("TopicA", "m"));
    auto d = dump();
    CHECK_EQ(d["actor"], "send_processor");
    CHECK_EQ(d["cluster_name"], "ClusterX");
    CHECK_EQ(d["store_host"], "10.0.0.5:10911");
    CHECK_EQ(d["requests"], 1);
    CHECK_EQ(d["stored_messages"], 1);
    CHECK_EQ(d["made_ids"], 1);
  }
}
