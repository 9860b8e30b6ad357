// The push consumer on the virtual clock against a fake broker: long
// polling, start offsets, offsets committed on schedule and never past an
// unprocessed message, flow control, send-back and local retries, dropped
// queues, shutdown; orderly: locks, one batch at a time in order, suspend.
#include "actors/client/consumer/push_consumer.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/local_offset_store.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/retry_topic.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

constexpr const char* topic = "TopicA";

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_directory> net
    = std::make_shared<test::fake_directory>();
  std::shared_ptr<test::fake_namesrv> namesrv
    = std::make_shared<test::fake_namesrv>();
  std::shared_ptr<test::fake_broker> broker
    = std::make_shared<test::fake_broker>();
  std::shared_ptr<client_instance> inst;
  test::fake_broker_actor broker_hdl;
  std::shared_ptr<test::fake_broker> slave
    = std::make_shared<test::fake_broker>();
  test::fake_broker_actor slave_hdl;
  /// What the listener was given, batch by batch.
  std::vector<std::vector<received_message>> batches;

  fixture() {
    auto dir = spawn(test::play_directory, net);
    namesrv->routes[topic] = test::route_over({"broker-a"}, 2);
    net->namesrvs["10.0.0.1:9876"] = spawn(test::play_namesrv, namesrv);
    broker_hdl = spawn(test::play_broker, broker);
    net->brokers["a:10911"] = broker_hdl;
    // The slave only hears heartbeats (consumers send them to every
    // address); the rest goes to the master.
    slave_hdl = spawn(test::play_broker, slave);
    net->brokers["a:10921"] = slave_hdl;
    client_config cc;
    cc.namesrv = "10.0.0.1:9876";
    cc.directory = dir;
    cc.client_ip = "10.1.1.1";
    cc.instance_name = "test";
    auto i = spawn_client_instance(sys, cc);
    REQUIRE(i);
    inst = *i;
    sched.run();
  }

  ~fixture() {
    stop_client_instance(sys, inst);
    inst.reset();
    sched.run();
  }

  push_consumer_config config() {
    push_consumer_config cfg;
    cfg.group = "G";
    cfg.subscriptions = {{topic, "*"}};
    cfg.consume_threads = 2;
    return cfg;
  }

  push_consumer_options options(push_consumer_config cfg) {
    push_consumer_options opts;
    opts.cfg = std::move(cfg);
    opts.instance = inst;
    opts.detached = false;
    opts.rebalance = false;
    opts.wall_clock = [] { return int64_t{1700000000000}; };
    return opts;
  }

  push_consumer_actor start(push_consumer_options opts) {
    auto hdl = spawn_push_consumer_actor(sys, std::move(opts));
    REQUIRE(hdl);
    track(*hdl);
    sched.run();
    return *hdl;
  }

  push_consumer_actor start_concurrent(
    std::function<consume_status(const std::vector<received_message>&)> f,
    push_consumer_config cfg) {
    auto opts = options(std::move(cfg));
    opts.concurrent = [this, f](const std::vector<received_message>& b) {
      batches.push_back(b);
      return f(b);
    };
    return start(std::move(opts));
  }

  push_consumer_actor start_orderly(
    std::function<orderly_status(const std::vector<received_message>&)> f,
    push_consumer_config cfg) {
    auto opts = options(std::move(cfg));
    opts.orderly = [this, f](const std::vector<received_message>& b) {
      batches.push_back(b);
      return f(b);
    };
    return start(std::move(opts));
  }

  /// A concurrent consumer given queue 0, where its group's offset is 0.
  push_consumer_actor concurrent_on_queue0(
    std::function<consume_status(const std::vector<received_message>&)> f,
    push_consumer_config cfg) {
    broker->offsets[{"G", topic, 0}] = 0;
    auto c = start_concurrent(std::move(f), std::move(cfg));
    assign(c, {0});
    return c;
  }

  /// An orderly consumer given queue 0, where its group's offset is 0.
  push_consumer_actor orderly_on_queue0(
    std::function<orderly_status(const std::vector<received_message>&)> f,
    push_consumer_config cfg) {
    broker->offsets[{"G", topic, 0}] = 0;
    auto c = start_orderly(std::move(f), std::move(cfg));
    assign(c, {0});
    return c;
  }

  void assign(const push_consumer_actor& c, std::vector<int32_t> ids) {
    queue_assignment a;
    a.topic = topic;
    for (auto id : ids)
      a.queues.push_back(message_queue{topic, "broker-a", id});
    caf::anon_send(c, assign_atom::value, a);
    sched.run();
  }

  void put(int32_t queue_id, const std::string& body,
           const std::string& tags = {}) {
    broker->append(topic, queue_id, body, tags);
    wake();
  }

  /// The fake broker answers its parked pulls that can be answered now.
  void wake() {
    caf::anon_send(broker_hdl, caf::tick_atom::value);
    sched.run();
  }

  nlohmann::json dump(const push_consumer_actor& c) {
    return nlohmann::json::parse(ask<std::string>(c, dump_atom::value));
  }

  /// Offsets the listener got, in order.
  std::vector<int64_t> consumed() const {
    std::vector<int64_t> xs;
    for (auto& b : batches)
      for (auto& m : b)
        xs.push_back(m.queue_offset);
    return xs;
  }

  /// The last commit of queue `id`, -1 if none.
  int64_t last_commit(int32_t id) const {
    int64_t off = -1;
    for (auto& c : broker->updates)
      if (c.topic == topic && c.queue_id == id)
        off = c.commit_offset;
    return off;
  }

  size_t commits_of(int32_t id) const {
    size_t n = 0;
    for (auto& c : broker->updates)
      if (c.topic == topic && c.queue_id == id)
        ++n;
    return n;
  }
};

auto ok = [](const std::vector<received_message>&) {
  return consume_status::consume_success;
};

auto orderly_ok = [](const std::vector<received_message>&) {
  return orderly_status::success;
};

} // namespace

TEST_SUITE("client.push_consumer") {
  TEST_CASE_FIXTURE(fixture, "the group reaches the heartbeats with its "
                             "subscriptions and retry topic") {
    auto c = start_concurrent(ok, config());
    REQUIRE_FALSE(broker->heartbeats.empty());
    auto& hb = broker->heartbeats.back();
    REQUIRE_EQ(hb.consumers.size(), 1u);
    auto& d = hb.consumers[0];
    CHECK_EQ(d.group_name, "G");
    CHECK_EQ(d.type, consume_type::consume_passively);
    CHECK_EQ(d.model, message_model::clustering);
    std::vector<std::string> topics;
    for (auto& s : d.subscriptions)
      topics.push_back(s.topic);
    CHECK_EQ(topics, std::vector<std::string>{retry_topic_of("G"), topic});
    CHECK(dump(c)["registered"].get<bool>());
    CHECK_FALSE(slave->heartbeats.empty());
  }

  TEST_CASE_FIXTURE(fixture, "the rebalance service gives it its queues "
                             "after the first heartbeat; shutdown leaves it") {
    broker->members["G"] = {inst->client_id};
    auto opts = options(config());
    opts.rebalance = true;
    opts.concurrent = ok;
    auto c = start(std::move(opts));
    auto d = dump(c);
    REQUIRE_EQ(d["queues"].size(), 2u);
    CHECK_EQ(d["queues"][0]["queue"]["queue_id"], 0);
    CHECK_EQ(d["queues"][1]["queue"]["queue_id"], 1);
    CHECK_EQ(broker->parked.size(), 2u);
    auto rb = nlohmann::json::parse(
      ask<std::string>(inst->rebalance, dump_atom::value));
    CHECK_EQ(rb["consumers"].size(), 1u);
    ask<caf::ok_atom>(c, shutdown_atom::value);
    rb = nlohmann::json::parse(
      ask<std::string>(inst->rebalance, dump_atom::value));
    CHECK_EQ(rb["consumers"].size(), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "a long poll is answered when a message "
                             "arrives") {
    auto c = concurrent_on_queue0(ok, config());
    REQUIRE_EQ(broker->pulls.size(), 1u);
    auto& p = broker->pulls[0];
    CHECK_EQ(p.consumer_group, "G");
    CHECK_EQ(p.queue_offset, 0);
    CHECK_EQ(p.max_msg_nums, 256);
    CHECK_EQ(p.suspend_timeout_ms, 15000);
    CHECK_NE(p.sys_flag & pull_sys_flag::suspend, 0);
    CHECK_NE(p.sys_flag & pull_sys_flag::subscription, 0);
    REQUIRE_EQ(broker->parked.size(), 1u);
    CHECK(batches.empty());
    put(0, "hello");
    REQUIRE_EQ(batches.size(), 1u);
    CHECK_EQ(batches[0][0].body, "hello");
    CHECK_EQ(batches[0][0].broker_name, "broker-a");
    // The next pull waits at offset 1.
    REQUIRE_EQ(broker->parked.size(), 1u);
    CHECK_EQ(broker->parked[0].req.queue_offset, 1);
  }

  TEST_CASE_FIXTURE(fixture, "a lost connection fails the pull in flight at "
                             "once: it backs off and pulls again, and a "
                             "late answer to the old pull is ignored") {
    auto c = concurrent_on_queue0(ok, config());
    REQUIRE_EQ(broker->pulls.size(), 1u);
    REQUIRE_EQ(broker->parked.size(), 1u);
    caf::anon_send(c, peer_lost_atom::value, std::string{"a:10911"});
    sched.run();
    CHECK_EQ(dump(c)["queues"][0]["pull_errors"], 1);
    // The old long poll is still parked at the broker; its answer comes
    // while the queue backs off and must not be consumed twice.
    put(0, "hello");
    CHECK(batches.empty());
    CHECK_EQ(broker->pulls.size(), 1u);
    advance_time(3s, 500ms);
    // The new pull finds the message at once, the next one waits at 1.
    REQUIRE_EQ(broker->pulls.size(), 3u);
    CHECK_EQ(broker->pulls[1].queue_offset, 0);
    CHECK_EQ(broker->pulls[2].queue_offset, 1);
    CHECK_EQ(consumed(), std::vector<int64_t>{0});
  }

  TEST_CASE_FIXTURE(fixture, "a pull the broker never answers is given up "
                             "at pull_timeout and pulled again, and its "
                             "late answer is ignored") {
    auto cfg = config();
    cfg.pull_timeout = 30s;
    auto c = concurrent_on_queue0(ok, cfg);
    REQUIRE_EQ(broker->pulls.size(), 1u);
    // One timer watches the pull (no CAF request timeout per pull).
    CHECK_EQ(dump(c)["pull_timers"], 1);
    advance_time(29s, 1s);
    CHECK_EQ(dump(c)["queues"][0]["pull_errors"], 0);
    advance_time(1s, 1s);
    CHECK_EQ(dump(c)["queues"][0]["pull_errors"], 1);
    // The broker still holds the old pull: its answer must not count.
    put(0, "hello");
    CHECK(batches.empty());
    advance_time(3s, 500ms);
    REQUIRE_EQ(broker->pulls.size(), 3u);
    CHECK_EQ(broker->pulls[1].queue_offset, 0);
    CHECK_EQ(consumed(), std::vector<int64_t>{0});
    CHECK_EQ(dump(c)["pull_timers"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "pulls reuse the resolved master: no connect "
                             "per pull") {
    auto c = concurrent_on_queue0(ok, config());
    auto connects = net->connects.size();
    for (int i = 0; i < 5; ++i)
      put(0, "m" + std::to_string(i));
    CHECK_EQ(consumed().size(), 5u);
    CHECK_GE(broker->pulls.size(), 6u);
    CHECK_EQ(net->connects.size(), connects);
    CHECK_EQ(dump(c)["masters"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "with its master gone a queue is read and "
                             "committed at the slave, and at the master "
                             "again once it is back") {
    auto c = concurrent_on_queue0(ok, config());
    put(0, "a");
    CHECK_EQ(consumed(), (std::vector<int64_t>{0}));
    // The slave has the master's log (replication's part).
    slave->append(topic, 0, "a");
    slave->append(topic, 0, "b");
    net->down.insert("a:10911");
    for (auto& l : net->listeners)
      self->send(l, peer_lost_atom::value, std::string{"a:10911"});
    // The pull parked at the lost master runs out; the next goes to the
    // slave, and the commit follows it.
    advance_time(60s, 1s);
    CHECK_EQ(consumed(), (std::vector<int64_t>{0, 1}));
    CHECK_FALSE(slave->pulls.empty());
    bool committed_at_slave = false;
    for (auto& u : slave->updates)
      committed_at_slave |= u.topic == topic && u.commit_offset == 2;
    CHECK(committed_at_slave);
    CHECK_EQ(dump(c)["masters"], 0); // a slave is never cached
    // The master is back, with the same log and one more: read there.
    net->down.erase("a:10911");
    broker->append(topic, 0, "b");
    auto master_pulls = broker->pulls.size();
    advance_time(60s, 1s);
    put(0, "c");
    CHECK_EQ(consumed(), (std::vector<int64_t>{0, 1, 2}));
    CHECK_GT(broker->pulls.size(), master_pulls);
    advance_time(10s, 1s); // the next commit
    CHECK_EQ(last_commit(0), 3);
  }

  TEST_CASE_FIXTURE(fixture, "a pull answer's suggested node is where the "
                             "queue's next pull goes (slaveReadEnable)") {
    auto c = concurrent_on_queue0(ok, config());
    slave->append(topic, 0, "a");
    slave->append(topic, 0, "b");
    // The master points the consumer at its slave (id 1), which keeps it.
    broker->suggest = 1;
    slave->suggest = 1;
    put(0, "a");
    // "b" came from the slave; the next pull is parked there.
    CHECK_EQ(consumed(), (std::vector<int64_t>{0, 1}));
    CHECK_EQ(slave->pulls.size(), 2u);
    CHECK_EQ(dump(c)["masters"], 2); // the suggested slave is cached too
    auto master_pulls = broker->pulls.size();
    // The slave's next answer names the master (caught up): back there.
    broker->append(topic, 0, "b");
    broker->append(topic, 0, "c");
    slave->append(topic, 0, "c");
    slave->suggest = 0;
    broker->suggest = 0;
    caf::anon_send(slave_hdl, caf::tick_atom::value);
    sched.run();
    CHECK_EQ(consumed(), (std::vector<int64_t>{0, 1, 2}));
    CHECK_EQ(broker->pulls.size(), master_pulls + 1);
    put(0, "d");
    CHECK_EQ(consumed(), (std::vector<int64_t>{0, 1, 2, 3}));
  }

  TEST_CASE_FIXTURE(fixture, "the start is the group's offset, else the "
                             "queue's max offset") {
    for (int i = 0; i < 3; ++i)
      broker->append(topic, 1, "old");
    broker->offsets[{"G", topic, 0}] = 0;
    auto c = start_concurrent(ok, config());
    assign(c, {0, 1});
    CHECK_EQ(broker->queries.size(), 2u);
    REQUIRE_EQ(broker->parked.size(), 2u);
    // Queue 1 has no group offset: CONSUME_FROM_LAST_OFFSET skips the
    // three old messages.
    for (auto& h : broker->parked)
      CHECK_EQ(h.req.queue_offset, h.req.queue_id == 1 ? 3 : 0);
    CHECK(batches.empty());
  }

  TEST_CASE_FIXTURE(fixture, "consume-from-timestamp searches from half an "
                             "hour ago, or from the given time (UTC)") {
    for (int i = 0; i < 5; ++i)
      broker->append(topic, 0, "m");
    broker->search_answer = 3;
    auto cfg = config();
    cfg.from_where = consume_from_where::consume_from_timestamp;
    auto c = start_concurrent(ok, cfg);
    assign(c, {0});
    REQUIRE_EQ(broker->searches.size(), 1u);
    CHECK_EQ(broker->searches[0].timestamp, 1700000000000 - 30 * 60 * 1000);
    CHECK_EQ(consumed(), std::vector<int64_t>{3, 4});
    cfg.consume_timestamp = "20240131235959";
    auto c2 = start_concurrent(ok, cfg);
    assign(c2, {1});
    REQUIRE_EQ(broker->searches.size(), 2u);
    CHECK_EQ(broker->searches[1].timestamp, 1706745599000);
  }

  TEST_CASE_FIXTURE(fixture, "a tag the broker let through by hash is "
                             "filtered by the client") {
    auto cfg = config();
    cfg.subscriptions = {{topic, "Aa"}};
    auto c = concurrent_on_queue0(ok, cfg);
    CHECK_EQ(broker->pulls[0].subscription, "Aa");
    put(0, "collides", "BB"); // "BB" has the hash code of "Aa"
    put(0, "wanted", "Aa");
    REQUIRE_EQ(batches.size(), 1u);
    CHECK_EQ(batches[0][0].body, "wanted");
    CHECK_EQ(dump(c)["queues"][0]["filtered"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "offsets are committed every persist interval "
                             "and never pass an unprocessed message") {
    broker->fail_send_back = true;
    bool first = true;
    auto c = concurrent_on_queue0(
      [&](const std::vector<received_message>& b) {
        // Offset 0 fails once: it stays in process for 5 s.
        if (b[0].queue_offset == 0 && first) {
          first = false;
          return consume_status::reconsume_later;
        }
        return consume_status::consume_success;
      },
      config());
    for (int i = 0; i < 5; ++i)
      broker->append(topic, 0, "m" + std::to_string(i));
    wake();
    CHECK_EQ(consumed(), std::vector<int64_t>{0, 1, 2, 3, 4});
    CHECK_EQ(commits_of(0), 0u);
    advance_time(5s, 500ms);
    // 1..4 are done but 0 waits for its local retry: commit 0.
    CHECK_EQ(commits_of(0), 1u);
    CHECK_EQ(last_commit(0), 0);
    REQUIRE_EQ(broker->send_backs.size(), 1u);
    // The local retry (5 s after the failed send-back) succeeds.
    advance_time(1s, 500ms);
    CHECK_EQ(consumed().size(), 6u);
    CHECK_EQ(batches.back()[0].queue_offset, 0);
    CHECK_EQ(batches.back()[0].reconsume_times, 1);
    advance_time(5s, 500ms);
    CHECK_EQ(commits_of(0), 2u);
    CHECK_EQ(last_commit(0), 5);
    // Pulls and commits go to the master only.
    CHECK(slave->pulls.empty());
    CHECK(slave->updates.empty());
  }

  TEST_CASE_FIXTURE(fixture, "reconsume_later sends the message back with "
                             "its reconsume times, then it is done") {
    auto c = concurrent_on_queue0(
      [](const std::vector<received_message>&) {
        return consume_status::reconsume_later;
      },
      config());
    put(0, "bad");
    REQUIRE_EQ(broker->send_backs.size(), 1u);
    auto& sb = broker->send_backs[0];
    CHECK_EQ(sb.group, "G");
    CHECK_EQ(sb.delay_level, 0);
    CHECK_EQ(sb.max_reconsume_times, 16);
    CHECK_EQ(sb.origin_topic, topic);
    CHECK_EQ(sb.offset, broker->phys[{topic, 0}][0]);
    advance_time(5s, 500ms);
    CHECK_EQ(last_commit(0), 1);
    CHECK_EQ(batches.size(), 1u);
    CHECK_EQ(dump(c)["sent_back"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a pull goes to the workers as whole slices; "
                             "only the slices that failed are sent back") {
    auto cfg = config();
    cfg.consume_batch_max = 2;
    auto c = concurrent_on_queue0(
      [](const std::vector<received_message>& b) {
        return b[0].queue_offset == 2 ? consume_status::reconsume_later
                                      : consume_status::consume_success;
      },
      cfg);
    for (int i = 0; i < 7; ++i)
      broker->append(topic, 0, "m" + std::to_string(i));
    wake();
    // Two workers: jobs of offsets 0..3 and 4..6; the listener sees slices
    // of at most two.
    std::vector<std::vector<int64_t>> slices;
    for (auto& b : batches) {
      slices.emplace_back();
      for (auto& m : b)
        slices.back().push_back(m.queue_offset);
    }
    std::sort(slices.begin(), slices.end());
    CHECK_EQ(slices,
             std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6}});
    auto d = dump(c);
    CHECK_EQ(d["consumed_ok"], 3);
    CHECK_EQ(d["consumed_retry"], 1);
    // Only 2 and 3 went back; then everything is done.
    std::vector<int64_t> back;
    for (auto& sb : broker->send_backs)
      back.push_back(sb.offset);
    CHECK_EQ(back, std::vector<int64_t>{broker->phys[{topic, 0}][2],
                                        broker->phys[{topic, 0}][3]});
    advance_time(5s, 500ms);
    CHECK_EQ(last_commit(0), 7);
  }

  TEST_CASE_FIXTURE(fixture, "a throwing listener counts as reconsume_later "
                             "and the consumer goes on") {
    auto c = concurrent_on_queue0(
      [](const std::vector<received_message>& b) -> consume_status {
        if (b[0].body == "boom")
          throw std::runtime_error("boom");
        return consume_status::consume_success;
      },
      config());
    put(0, "boom");
    put(0, "fine");
    CHECK_EQ(batches.size(), 2u);
    CHECK_EQ(broker->send_backs.size(), 1u);
    advance_time(5s, 500ms);
    CHECK_EQ(last_commit(0), 2);
  }

  TEST_CASE_FIXTURE(fixture, "a send-back that fails is consumed again "
                             "locally after 5 s, never lost") {
    broker->fail_send_back = true;
    int calls = 0;
    auto c = concurrent_on_queue0(
      [&](const std::vector<received_message>&) {
        return ++calls == 1 ? consume_status::reconsume_later
                            : consume_status::consume_success;
      },
      config());
    put(0, "x");
    CHECK_EQ(calls, 1);
    advance_time(4500ms, 500ms);
    CHECK_EQ(calls, 1);
    advance_time(500ms, 500ms);
    CHECK_EQ(calls, 2);
    CHECK_EQ(batches[1][0].reconsume_times, 1);
    CHECK_EQ(dump(c)["local_retries"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a record no listener can decode goes to the "
                             "dead letters and the queue goes on") {
    auto c = concurrent_on_queue0(
      [](const std::vector<received_message>&) {
        return consume_status::consume_success;
      },
      config());
    broker->append(topic, 0, "first");
    // A COMPRESSED body that is no zlib stream: its header holds.
    broker->append(topic, 0, "not zlib", {}, {}, true);
    broker->append(topic, 0, "third");
    wake();
    CHECK_EQ(consumed(), std::vector<int64_t>{0, 2});
    REQUIRE_EQ(broker->send_backs.size(), 1u);
    auto& sb = broker->send_backs[0];
    CHECK_EQ(sb.delay_level, -1); // straight to the DLQ
    CHECK_EQ(sb.offset, broker->phys[{topic, 0}][1]);
    CHECK_EQ(sb.origin_topic, topic);
    advance_time(5s, 500ms);
    CHECK_EQ(last_commit(0), 3);
    auto d = dump(c);
    CHECK_EQ(d["undecodable"], 1);
    CHECK_EQ(d["undecodable_skipped"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "an invalid group name is refused at start") {
    for (auto group : {std::string{"g g"}, std::string(300, 'g')}) {
      auto cfg = config();
      cfg.group = group;
      auto opts = options(cfg);
      opts.concurrent = [](const std::vector<received_message>&) {
        return consume_status::consume_success;
      };
      auto c = spawn_push_consumer_actor(sys, std::move(opts));
      REQUIRE_FALSE(c);
      CHECK_EQ(c.error(), errc::invalid_parameter);
    }
  }

  TEST_CASE_FIXTURE(fixture, "a record damaged in the broker's store is "
                             "skipped, the rest consumed") {
    auto c = concurrent_on_queue0(
      [](const std::vector<received_message>&) {
        return consume_status::consume_success;
      },
      config());
    broker->damaged.insert({topic, 0, 1});
    for (int i = 0; i < 4; ++i)
      broker->append(topic, 0, "m" + std::to_string(i));
    wake();
    CHECK_EQ(consumed(), std::vector<int64_t>{0, 2, 3});
    advance_time(5s, 500ms);
    CHECK_EQ(last_commit(0), 4);
    CHECK_EQ(dump(c)["damaged_skipped"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "flow control pauses the pull and consumption "
                             "resumes it") {
    broker->offsets[{"G", topic, 0}] = 0;
    broker->fail_send_back = true;
    bool healthy = false;
    auto cfg = config();
    cfg.pull_batch_size = 2;
    cfg.limits.max_count = 3;
    auto c = start_concurrent(
      [&](const std::vector<received_message>&) {
        return healthy ? consume_status::consume_success
                       : consume_status::reconsume_later;
      },
      cfg);
    for (int i = 0; i < 6; ++i)
      broker->append(topic, 0, "m");
    assign(c, {0});
    // Two pulls of two: four in process > 3, no third pull.
    CHECK_EQ(broker->pulls.size(), 2u);
    auto d = dump(c)["queues"][0];
    CHECK(d["paused"].get<bool>());
    CHECK_EQ(d["count"], 4);
    advance_time(4s, 500ms);
    CHECK_EQ(broker->pulls.size(), 2u);
    healthy = true;
    advance_time(2s, 500ms); // the local retries succeed
    CHECK_FALSE(dump(c)["queues"][0]["paused"].get<bool>());
    CHECK_GE(broker->pulls.size(), 3u);
    CHECK_EQ(consumed().size(), 10u); // 4 failed + 4 retried + 2 more
  }

  TEST_CASE_FIXTURE(fixture, "a dropped queue commits at once") {
    broker->offsets[{"G", topic, 0}] = 0;
    auto c = start_concurrent(ok, config());
    assign(c, {0, 1});
    put(0, "a");
    put(0, "b");
    CHECK_EQ(commits_of(0), 0u);
    assign(c, {1});
    CHECK_EQ(commits_of(0), 1u);
    CHECK_EQ(last_commit(0), 2);
    CHECK_EQ(dump(c)["queues"].size(), 1u);
    // Its held pull's answer is thrown away.
    put(0, "c");
    CHECK_EQ(consumed().size(), 2u);
  }

  TEST_CASE_FIXTURE(fixture, "an illegal offset moves to the broker's next "
                             "offset and commits it") {
    broker->offsets[{"G", topic, 0}] = 7; // past the queue's end
    broker->append(topic, 0, "a");
    auto c = start_concurrent(ok, config());
    assign(c, {0});
    CHECK_EQ(last_commit(0), 1);
    REQUIRE_EQ(broker->parked.size(), 1u);
    CHECK_EQ(broker->parked[0].req.queue_offset, 1);
    (void)c;
  }

  TEST_CASE_FIXTURE(fixture, "shutdown commits, unregisters the group and "
                             "answers ok") {
    auto c = concurrent_on_queue0(ok, config());
    put(0, "a");
    ask<caf::ok_atom>(c, shutdown_atom::value);
    CHECK_EQ(last_commit(0), 1);
    REQUIRE_EQ(broker->unregistrations.size(), 1u);
    CHECK_EQ(broker->unregistrations[0].consumer_group, "G");
  }

  TEST_CASE_FIXTURE(fixture, "broadcasting: offsets go to the local file, "
                             "failures are dropped, not sent back") {
    test::temp_dir dir;
    auto cfg = config();
    cfg.model = message_model::broadcasting;
    cfg.offset_dir = dir.path();
    cfg.from_where = consume_from_where::consume_from_first_offset;
    auto c = start_concurrent(
      [](const std::vector<received_message>& b) {
        return b[0].body == "bad" ? consume_status::reconsume_later
                                  : consume_status::consume_success;
      },
      cfg);
    // No retry topic for broadcasting groups.
    auto& d = broker->heartbeats.back().consumers.at(0);
    REQUIRE_EQ(d.subscriptions.size(), 1u);
    CHECK_EQ(d.model, message_model::broadcasting);
    assign(c, {0});
    CHECK(broker->queries.empty());
    put(0, "bad");
    put(0, "good");
    CHECK_EQ(batches.size(), 2u);
    CHECK(broker->send_backs.empty());
    advance_time(5s, 500ms);
    CHECK(broker->updates.empty());
    local_offset_store file{
      local_offset_path(dir.path(), inst->client_id, "G")};
    REQUIRE_FALSE(file.load());
    CHECK_EQ(file.read(message_queue{topic, "broker-a", 0}), 2);
    // A restarted consumer starts where the file says.
    ask<caf::ok_atom>(c, shutdown_atom::value);
    put(0, "later");
    batches.clear();
    auto c2 = start_concurrent(ok, cfg);
    assign(c2, {0});
    CHECK_EQ(consumed(), std::vector<int64_t>{2});
  }

  // -- orderly ---------------------------------------------------------------

  TEST_CASE_FIXTURE(fixture, "orderly: no consumption without the queue's "
                             "lock; renewed every 20 s") {
    broker->grant_locks = false;
    broker->append(topic, 0, "a");
    auto c = orderly_on_queue0(orderly_ok, config());
    REQUIRE_EQ(broker->locks.size(), 1u);
    CHECK_EQ(broker->locks[0].group, "G");
    CHECK_EQ(broker->locks[0].client_id, inst->client_id);
    CHECK(broker->pulls.empty());
    advance_time(19s, 1s);
    CHECK_EQ(broker->locks.size(), 1u);
    CHECK(broker->pulls.empty());
    broker->grant_locks = true;
    advance_time(1s, 1s);
    CHECK_EQ(broker->locks.size(), 2u);
    CHECK_EQ(consumed(), std::vector<int64_t>{0});
    advance_time(20s, 1s);
    CHECK_EQ(broker->locks.size(), 3u);
    CHECK(dump(c)["queues"][0]["locked"].get<bool>());
  }

  TEST_CASE_FIXTURE(fixture, "orderly: a pull due while a lock renewal is "
                             "out goes out when the renewal is answered") {
    auto c = orderly_on_queue0(orderly_ok, config());
    put(0, "a");
    CHECK_EQ(consumed().size(), 1u);
    // The 20 s renewal stays unanswered while the held pull returns "b".
    broker->hold_locks = true;
    advance_time(20s, 1s);
    REQUIRE_EQ(broker->held_locks.size(), 1u);
    put(0, "b");
    CHECK_EQ(consumed().size(), 2u);
    broker->hold_locks = false;
    wake();
    // The next pull went out after the answer: "c" arrives.
    put(0, "c");
    CHECK_EQ(consumed(), (std::vector<int64_t>{0, 1, 2}));
  }

  TEST_CASE_FIXTURE(fixture, "orderly: a lock not renewed for 30 s stops "
                             "consumption") {
    auto c = orderly_on_queue0(orderly_ok, config());
    put(0, "a");
    CHECK_EQ(consumed().size(), 1u);
    // The broker group's connections go (the directory tells its
    // listeners, as the real one does) and stay refused: renewals fail
    // and the lock ages out. (With the slave up, pulls would go there;
    // locks never do.)
    for (auto addr : {"a:10911", "a:10921"}) {
      net->down.insert(addr);
      for (auto& l : net->listeners)
        self->send(l, peer_lost_atom::value, std::string{addr});
    }
    advance_time(41s, 1s);
    net->down.erase("a:10911");
    net->down.erase("a:10921");
    broker->append(topic, 0, "b");
    // The pull still works (the renewal will too, at 60 s), but the
    // expired lock keeps the message from the listener until then.
    wake();
    advance_time(10s, 1s);
    // Pulled by now, but the lock expired at 30 s: not consumed.
    CHECK_EQ(dump(c)["queues"][0]["count"], 1);
    CHECK_EQ(consumed().size(), 1u);
    advance_time(10s, 1s);
    CHECK_EQ(consumed().size(), 2u);
  }

  TEST_CASE_FIXTURE(fixture, "orderly: a queue dropped while its batch is "
                             "at a worker is unlocked only after the batch") {
    broker->offsets[{"G", topic, 0}] = 0;
    push_consumer_actor c;
    bool dropped = false;
    size_t unlocks_during_batch = 0;
    c = start_orderly(
      [&](const std::vector<received_message>&) {
        if (!dropped) {
          // The rebalance takes the queue away mid-batch; everything else
          // runs while this listener still holds the batch.
          dropped = true;
          caf::anon_send(c, assign_atom::value, queue_assignment{topic, {}});
          sched.run();
          unlocks_during_batch = broker->unlocks.size();
        }
        return orderly_status::success;
      },
      config());
    assign(c, {0});
    put(0, "a");
    REQUIRE(dropped);
    CHECK_EQ(unlocks_during_batch, 0u);
    CHECK_EQ(broker->unlocks.size(), 1u);
    CHECK(dump(c)["queues"].empty());
  }

  TEST_CASE_FIXTURE(fixture, "orderly: a queue dropped and owned again while "
                             "its batch is at a worker consumes only after "
                             "that batch") {
    broker->offsets[{"G", topic, 0}] = 0;
    push_consumer_actor c;
    int depth = 0;
    int max_depth = 0;
    int calls = 0;
    c = start_orderly(
      [&](const std::vector<received_message>&) {
        max_depth = std::max(max_depth, ++depth);
        if (++calls == 1) {
          caf::anon_send(c, assign_atom::value, queue_assignment{topic, {}});
          caf::anon_send(c, assign_atom::value,
                         queue_assignment{topic, {{topic, "broker-a", 0}}});
          sched.run();
        }
        --depth;
        return orderly_status::success;
      },
      config());
    assign(c, {0});
    put(0, "a");
    // The new ownership starts from the commit made at the drop: it reads
    // "a" again, after the first batch ended.
    CHECK_EQ(max_depth, 1);
    CHECK_EQ(calls, 2);
    CHECK(broker->unlocks.empty());
  }

  TEST_CASE_FIXTURE(fixture, "orderly: one batch at a time, in queue "
                             "order") {
    for (int i = 0; i < 6; ++i)
      broker->append(topic, 0, "m" + std::to_string(i));
    auto cfg = config();
    cfg.consume_batch_max = 2;
    cfg.consume_threads = 3;
    auto c = orderly_on_queue0(orderly_ok, cfg);
    REQUIRE_EQ(batches.size(), 3u);
    CHECK_EQ(consumed(), std::vector<int64_t>{0, 1, 2, 3, 4, 5});
    for (auto& b : batches)
      CHECK_EQ(b.size(), 2u);
    advance_time(5s, 1s);
    CHECK_EQ(last_commit(0), 6);
  }

  TEST_CASE_FIXTURE(fixture, "orderly: suspend delivers the same messages "
                             "again after 1 s, before any later one") {
    broker->offsets[{"G", topic, 0}] = 0;
    broker->append(topic, 0, "a");
    broker->append(topic, 0, "b");
    auto cfg = config();
    cfg.consume_threads = 3;
    int calls = 0;
    push_consumer_actor c;
    c = start_orderly(
      [&](const std::vector<received_message>&) {
        // Wakes the consumer while this batch is out: it must still not
        // hand out the queue's next message.
        caf::anon_send(c, caf::tick_atom::value);
        return ++calls == 1 ? orderly_status::suspend_current_queue_a_moment
                            : orderly_status::success;
      },
      cfg);
    assign(c, {0});
    CHECK_EQ(calls, 1);
    advance_time(900ms, 100ms);
    CHECK_EQ(calls, 1);
    advance_time(100ms, 100ms);
    REQUIRE_EQ(calls, 3);
    // Offset 1 waited behind the suspended 0, with idle workers around.
    CHECK_EQ(consumed(), std::vector<int64_t>{0, 0, 1});
    CHECK_EQ(batches[1][0].reconsume_times, 1);
    CHECK_EQ(broker->send_backs.size(), 0u);
    advance_time(5s, 1s);
    CHECK_EQ(last_commit(0), 2);
  }

  TEST_CASE_FIXTURE(fixture, "orderly: past max reconsume times a message "
                             "is sent back, then committed") {
    broker->append(topic, 0, "poison");
    broker->append(topic, 0, "next");
    auto cfg = config();
    cfg.max_reconsume_times = 2;
    auto c = orderly_on_queue0(
      [](const std::vector<received_message>& b) {
        return b[0].body == "poison"
                 ? orderly_status::suspend_current_queue_a_moment
                 : orderly_status::success;
      },
      cfg);
    advance_time(3s, 100ms);
    // Consumed with reconsume times 0, 1, 2; the third failure is past
    // the limit: sent back, and the queue moves on.
    CHECK_EQ(consumed(), std::vector<int64_t>{0, 0, 0, 1});
    REQUIRE_EQ(broker->send_backs.size(), 1u);
    CHECK_EQ(broker->send_backs[0].max_reconsume_times, 2);
    advance_time(5s, 1s);
    CHECK_EQ(last_commit(0), 2);
  }

  TEST_CASE_FIXTURE(fixture, "orderly: shutdown unlocks the queues") {
    broker->offsets[{"G", topic, 0}] = 0;
    auto c = start_orderly(orderly_ok, config());
    assign(c, {0, 1});
    ask<caf::ok_atom>(c, shutdown_atom::value);
    REQUIRE_EQ(broker->unlocks.size(), 1u);
    CHECK_EQ(broker->unlocks[0].queues.size(), 2u);
    CHECK_EQ(broker->unregistrations.size(), 1u);
  }
}
