// The lite pull consumer on the virtual clock against fake brokers: poll
// order, long polls, offsets (start, commit, auto-commit, seek), rebalance
// changes, the buffer bound, the client-side tag re-check, back-off and
// shutdown.
#include "actors/client/consumer/lite_pull_consumer.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_broker.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

using msgs = std::vector<received_message>;

message_queue q(int32_t id, const std::string& broker = "broker-a") {
  return message_queue{"TopicA", broker, id};
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_directory> net
    = std::make_shared<test::fake_directory>();
  std::shared_ptr<test::fake_route_cache> routes_st
    = std::make_shared<test::fake_route_cache>();
  std::shared_ptr<test::fake_broker> broker
    = std::make_shared<test::fake_broker>();
  std::shared_ptr<test::fake_heartbeats> hb
    = std::make_shared<test::fake_heartbeats>();
  std::shared_ptr<test::fake_rebalance> rb
    = std::make_shared<test::fake_rebalance>();
  std::shared_ptr<client_instance> inst = std::make_shared<client_instance>();
  lite_pull_consumer_config cfg;
  test::fake_broker_actor broker_hdl;

  fixture() {
    inst->client_id = "10.1.1.1@c1";
    inst->directory = spawn(test::play_directory, net);
    inst->routes = spawn(test::play_route_cache, routes_st);
    inst->heartbeats = spawn(test::play_heartbeats, hb);
    inst->rebalance = spawn(test::play_rebalance, rb);
    routes_st->routes["TopicA"] = test::route_over({"broker-a"});
    broker_hdl = spawn(test::play_broker, broker);
    net->brokers["a:10911"] = broker_hdl;
    cfg.group = "G";
    cfg.from_where = consume_from_where::consume_from_first_offset;
    cfg.assigned = {q(0)};
  }

  lite_pull_consumer_actor start() {
    lite_pull_consumer_options opts;
    opts.cfg = cfg;
    opts.instance = inst;
    opts.wall_clock = [] { return int64_t{1700000000000}; };
    return spawn(lite_pull_consumer_main, opts);
  }

  void add(int32_t queue, int n, const std::string& tags = "TagA") {
    for (int i = 0; i < n; ++i)
      broker->append("TopicA", queue, "body", tags, "k");
    caf::anon_send(broker_hdl, caf::tick_atom::value);
    sched.run();
  }

  /// Polls; lets the virtual clock run out the timeout when nothing is
  /// there at once.
  msgs poll(const lite_pull_consumer_actor& c, caf::timespan t = 1s) {
    msgs result;
    auto rh = self->request(c, caf::infinite, poll_atom::value, t);
    sched.run();
    if (self->mailbox().empty())
      advance_time(t, t);
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([&](msgs& xs) { result = std::move(xs); },
               [&](caf::error& err) { FAIL(sys.render(err)); });
    return result;
  }

  static std::vector<int64_t> offsets(const msgs& xs) {
    std::vector<int64_t> result;
    for (auto& x : xs)
      result.push_back(x.queue_offset);
    return result;
  }

  nlohmann::json dump(const lite_pull_consumer_actor& c) {
    return nlohmann::json::parse(ask<std::string>(c, dump_atom::value));
  }

  /// The last committed offset of queue `id` the broker saw, or -1.
  int64_t last_update(int32_t id) {
    int64_t result = -1;
    for (auto& u : broker->updates)
      if (u.queue_id == id)
        result = u.commit_offset;
    return result;
  }
};

} // namespace

TEST_SUITE("client.lite_pull_consumer") {
  TEST_CASE_FIXTURE(fixture, "poll gets pulled messages in queue order") {
    add(0, 5);
    auto c = start();
    auto xs = poll(c);
    CHECK_EQ(offsets(xs), std::vector<int64_t>{0, 1, 2, 3, 4});
    CHECK_EQ(xs[0].topic, "TopicA");
    CHECK_EQ(xs[0].broker_name, "broker-a");
    CHECK_EQ(xs[0].tags, "TagA");
    // The next pull waits at the broker: a message arriving answers it.
    REQUIRE_EQ(broker->parked.size(), 1u);
    CHECK_EQ(broker->parked[0].req.queue_offset, 5);
    CHECK_NE(broker->parked[0].req.sys_flag & pull_sys_flag::suspend, 0);
    CHECK_EQ(broker->parked[0].req.suspend_timeout_ms, 20000);
    add(0, 3);
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{5, 6, 7});
  }

  TEST_CASE_FIXTURE(fixture, "poll with nothing waits until the timeout or "
                             "the first arrival") {
    auto c = start();
    msgs got;
    bool answered = false;
    auto rh = self->request(c, caf::infinite, poll_atom::value,
                            caf::timespan{5s});
    sched.run();
    CHECK(self->mailbox().empty());
    advance_time(4s, 1s);
    CHECK(self->mailbox().empty());
    add(0, 1);
    rh.receive(
      [&](msgs& xs) {
        answered = true;
        got = xs;
      },
      [&](caf::error& err) { FAIL(sys.render(err)); });
    CHECK(answered);
    CHECK_EQ(offsets(got), std::vector<int64_t>{0});
    auto rh2 = self->request(c, caf::infinite, poll_atom::value,
                             caf::timespan{5s});
    sched.run();
    CHECK(self->mailbox().empty());
    advance_time(5s, 1s);
    answered = false;
    rh2.receive(
      [&](msgs& xs) {
        answered = true;
        CHECK(xs.empty());
      },
      [&](caf::error& err) { FAIL(sys.render(err)); });
    CHECK(answered);
  }

  TEST_CASE_FIXTURE(fixture, "start offsets: the broker's committed one, "
                             "else the consume-from rule") {
    add(0, 5);
    SUBCASE("committed offset") {
      broker->offsets[{"G", "TopicA", 0}] = 3;
      auto c = start();
      CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{3, 4});
    }
    SUBCASE("no offset, consume from last: the queue's max") {
      cfg.from_where = consume_from_where::consume_from_last_offset;
      auto c = start();
      CHECK(poll(c).empty());
      add(0, 1);
      CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{5});
    }
    SUBCASE("an illegal offset moves to the broker's next begin offset") {
      broker->offsets[{"G", "TopicA", 0}] = 100;
      auto c = start();
      add(0, 1);
      CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{5});
    }
  }

  TEST_CASE_FIXTURE(fixture, "commit and auto-commit send next-to-poll "
                             "offsets") {
    cfg.auto_commit = false;
    SUBCASE("explicit commit") {
      add(0, 5);
      auto c = start();
      poll(c);
      ask<caf::ok_atom>(c, commit_atom::value);
      REQUIRE_EQ(broker->updates.size(), 1u);
      CHECK_EQ(broker->updates[0].consumer_group, "G");
      CHECK_EQ(broker->updates[0].topic, "TopicA");
      CHECK_EQ(broker->updates[0].commit_offset, 5);
      // Nothing new polled: nothing to send.
      ask<caf::ok_atom>(c, commit_atom::value);
      CHECK_EQ(broker->updates.size(), 1u);
      // Buffered but not polled does not count.
      add(0, 2);
      ask<caf::ok_atom>(c, commit_atom::value);
      CHECK_EQ(broker->updates.size(), 1u);
      poll(c);
      ask<caf::ok_atom>(c, commit_atom::value);
      CHECK_EQ(last_update(0), 7);
    }
    SUBCASE("auto-commit every persist interval") {
      cfg.auto_commit = true;
      add(0, 5);
      auto c = start();
      poll(c);
      advance_time(4s, 1s);
      CHECK(broker->updates.empty());
      advance_time(1s, 1s);
      CHECK_EQ(last_update(0), 5);
      add(0, 2);
      poll(c);
      advance_time(5s, 1s);
      CHECK_EQ(last_update(0), 7);
      CHECK_EQ(broker->updates.size(), 2u);
    }
  }

  TEST_CASE_FIXTURE(fixture, "seek drops the queue's buffered messages and "
                             "pulls from the offset") {
    cfg.auto_commit = false;
    add(0, 5);
    auto c = start();
    SUBCASE("after a poll") {
      poll(c);
      ask<caf::ok_atom>(c, seek_atom::value, q(0), int64_t{1});
      CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{1, 2, 3, 4});
    }
    SUBCASE("with messages buffered") {
      ask<caf::ok_atom>(c, seek_atom::value, q(0), int64_t{3});
      CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{3, 4});
      CHECK_EQ(dump(c)["buffered"], 0);
    }
    SUBCASE("the seek offset is what a commit writes") {
      ask<caf::ok_atom>(c, seek_atom::value, q(0), int64_t{2});
      ask<caf::ok_atom>(c, commit_atom::value);
      CHECK_EQ(last_update(0), 2);
    }
    SUBCASE("to the queue's max offset: nothing until a new message") {
      ask<caf::ok_atom>(c, seek_atom::value, q(0), int64_t{5});
      add(0, 1);
      CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{5});
    }
    SUBCASE("outside [min, max] is refused, and nothing changes") {
      poll(c);
      CHECK_EQ(ask_error<caf::ok_atom>(c, seek_atom::value, q(0), int64_t{7}),
               errc::invalid_parameter);
      ask<caf::ok_atom>(c, commit_atom::value);
      CHECK_EQ(last_update(0), 5);
    }
    CHECK_EQ(ask_error<caf::ok_atom>(c, seek_atom::value, q(3), int64_t{0}),
             errc::invalid_parameter);
  }

  TEST_CASE_FIXTURE(fixture, "subscribe mode: routes, then the group's "
                             "heartbeat, then the rebalance registration") {
    cfg.assigned.clear();
    cfg.subscriptions = {{"TopicA", "TagA || TagB"}};
    auto c = start();
    CHECK_EQ(routes_st->asked["TopicA"], 1);
    REQUIRE_EQ(hb->consumers.size(), 1u);
    auto& cd = hb->consumers[0];
    CHECK_EQ(cd.group_name, "G");
    CHECK_EQ(cd.type, consume_type::consume_actively);
    CHECK_EQ(cd.model, message_model::clustering);
    REQUIRE_EQ(cd.subscriptions.size(), 1u);
    CHECK_EQ(cd.subscriptions[0].topic, "TopicA");
    CHECK_EQ(cd.subscriptions[0].tags_set,
             std::vector<std::string>{"TagA", "TagB"});
    REQUIRE_EQ(rb->registered.size(), 1u);
    CHECK_EQ(rb->registered[0].group, "G");
    CHECK_EQ(rb->registered[0].topics, std::vector<std::string>{"TopicA"});
    CHECK_EQ(dump(c)["registered"], true);
    // Nothing is read before the rebalance assigns.
    CHECK(broker->pulls.empty());
  }

  TEST_CASE_FIXTURE(fixture, "a rebalance change starts and stops queues, "
                             "committing the dropped one first") {
    cfg.assigned.clear();
    cfg.auto_commit = false;
    cfg.subscriptions = {{"TopicA", "*"}};
    add(0, 3);
    add(1, 2);
    auto c = start();
    caf::anon_send(c, assign_atom::value,
                   queue_assignment{"TopicA", {q(0), q(1)}});
    sched.run();
    CHECK_EQ(dump(c)["queues"].size(), 2u);
    auto first = poll(c);
    REQUIRE_EQ(first.size(), 3u);
    CHECK_EQ(first[0].queue_id, 0);
    // Queue 1's batch is buffered; queue 0 goes away.
    caf::anon_send(c, assign_atom::value, queue_assignment{"TopicA", {q(1)}});
    sched.run();
    CHECK_EQ(last_update(0), 3);
    auto d = dump(c);
    REQUIRE_EQ(d["queues"].size(), 1u);
    CHECK_EQ(d["queues"][0]["queue"]["queue_id"], 1);
    // Queue 0's new messages are not read any more; queue 1's are.
    add(0, 1);
    auto second = poll(c);
    REQUIRE_EQ(second.size(), 2u);
    CHECK_EQ(second[0].queue_id, 1);
    CHECK(poll(c).empty());
    // An assignment for a topic not subscribed is ignored.
    caf::anon_send(c, assign_atom::value,
                   queue_assignment{"Other", {message_queue{"Other", "b", 0}}});
    sched.run();
    CHECK_EQ(dump(c)["queues"].size(), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "a dropped queue's buffered messages are not "
                             "polled") {
    cfg.assigned.clear();
    cfg.auto_commit = false;
    cfg.subscriptions = {{"TopicA", "*"}};
    add(0, 3);
    auto c = start();
    caf::anon_send(c, assign_atom::value, queue_assignment{"TopicA", {q(0)}});
    sched.run();
    caf::anon_send(c, assign_atom::value, queue_assignment{"TopicA", {}});
    sched.run();
    CHECK(poll(c).empty());
    // Nothing was polled: the commit writes the start offset, skipping
    // nothing.
    CHECK_EQ(last_update(0), 0);
  }

  TEST_CASE_FIXTURE(fixture, "the buffer bound pauses pulling until poll "
                             "drains it") {
    cfg.buffer_max_messages = 3;
    cfg.pull_batch_size = 3;
    add(0, 10);
    auto c = start();
    CHECK_EQ(broker->pulls.size(), 1u);
    advance_time(10s, 1s);
    CHECK_EQ(broker->pulls.size(), 1u);
    CHECK_EQ(dump(c)["buffered"], 3);
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{0, 1, 2});
    CHECK_EQ(broker->pulls.size(), 2u);
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{3, 4, 5});
  }

  TEST_CASE_FIXTURE(fixture, "the tag re-check drops messages whose tag "
                             "does not match") {
    cfg.subscriptions = {{"TopicA", "TagA"}};
    add(0, 1, "TagA");
    add(0, 1, "TagB");
    add(0, 1, "TagA");
    add(0, 1, "");
    auto c = start();
    CHECK_EQ(broker->pulls[0].subscription, "TagA");
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{0, 2});
    CHECK_EQ(dump(c)["queues"][0]["filtered"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a failed pull backs off pull_backoff") {
    broker->fail_pulls = true;
    add(0, 2);
    auto c = start();
    CHECK_EQ(broker->pulls.size(), 1u);
    advance_time(2s, 1s);
    CHECK_EQ(broker->pulls.size(), 1u);
    broker->fail_pulls = false;
    advance_time(1s, 1s);
    // The retry finds both messages, the pull after it waits at the broker.
    REQUIRE_EQ(broker->pulls.size(), 3u);
    CHECK_EQ(broker->pulls[1].queue_offset, 0);
    CHECK_EQ(broker->pulls[2].queue_offset, 2);
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{0, 1});
    CHECK_EQ(dump(c)["queues"][0]["failures"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a lost connection fails the pull in flight at "
                             "once; a late answer to it is ignored") {
    auto c = start();
    sched.run();
    REQUIRE_EQ(broker->parked.size(), 1u);
    caf::anon_send(c, peer_lost_atom::value, std::string{"a:10911"});
    sched.run();
    CHECK_EQ(dump(c)["queues"][0]["failures"], 1);
    // The old long poll is answered while the queue backs off: ignored.
    add(0, 2);
    CHECK_EQ(broker->pulls.size(), 1u);
    advance_time(3s, 1s);
    REQUIRE_EQ(broker->pulls.size(), 3u);
    CHECK_EQ(broker->pulls[1].queue_offset, 0);
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{0, 1});
    CHECK_EQ(dump(c)["buffered"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "pulls reuse the resolved master until its "
                             "connection is lost") {
    auto c = start();
    sched.run();
    auto connects = net->connects.size();
    add(0, 2);
    CHECK_EQ(offsets(poll(c)), (std::vector<int64_t>{0, 1}));
    // The pull after the answer went to the known master: no connect.
    CHECK_GE(broker->pulls.size(), 2u);
    CHECK_EQ(net->connects.size(), connects);
    CHECK_EQ(dump(c)["masters"], 1);
    caf::anon_send(c, peer_lost_atom::value, std::string{"a:10911"});
    sched.run();
    CHECK_EQ(dump(c)["masters"], 0);
    // The pull after the back-off resolves it again.
    advance_time(3s, 1s);
    CHECK_GT(net->connects.size(), connects);
    CHECK_EQ(dump(c)["masters"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "shutdown commits, unregisters and quits") {
    cfg.assigned.clear();
    cfg.subscriptions = {{"TopicA", "*"}};
    add(0, 4);
    auto c = start();
    caf::anon_send(c, assign_atom::value, queue_assignment{"TopicA", {q(0)}});
    sched.run();
    poll(c);
    ask<caf::ok_atom>(c, shutdown_atom::value);
    CHECK_EQ(last_update(0), 4);
    CHECK_EQ(rb->removed, 1);
    CHECK_EQ(hb->unregistered, std::vector<std::string>{"G"});
    sched.run();
    auto err = ask_error<msgs>(c, poll_atom::value, caf::timespan{1s});
    CHECK(err);
  }

  TEST_CASE_FIXTURE(fixture, "assign mode: the group is in the heartbeats "
                             "with no subscriptions, and leaves them at "
                             "shutdown; no rebalance") {
    auto c = start();
    sched.run();
    REQUIRE_EQ(hb->consumers.size(), 1u);
    CHECK_EQ(hb->consumers[0].group_name, "G");
    CHECK_EQ(hb->consumers[0].type, consume_type::consume_actively);
    CHECK(hb->consumers[0].subscriptions.empty());
    CHECK(rb->registered.empty());
    CHECK(dump(c)["registered"].get<bool>());
    ask<caf::ok_atom>(c, shutdown_atom::value);
    CHECK_EQ(hb->unregistered, std::vector<std::string>{"G"});
    CHECK_EQ(rb->removed, 0);
  }

  TEST_CASE_FIXTURE(fixture, "broadcasting keeps its offsets in the local "
                             "file, not at the broker") {
    test::temp_dir dir;
    cfg.model = message_model::broadcasting;
    cfg.offset_dir = dir.path();
    cfg.auto_commit = false;
    add(0, 5);
    {
      auto c = start();
      CHECK_EQ(poll(c).size(), 5u);
      ask<caf::ok_atom>(c, commit_atom::value);
      CHECK(broker->updates.empty());
      ask<caf::ok_atom>(c, shutdown_atom::value);
    }
    auto loaded = local_offset_file::load(
      local_offset_path(dir.path(), inst->client_id, "G"));
    REQUIRE(loaded);
    CHECK_EQ(loaded->offsets[q(0)], 5);
    // A new consumer of the same client and group goes on from there.
    add(0, 1);
    auto c = start();
    CHECK_EQ(offsets(poll(c)), std::vector<int64_t>{5});
  }

  TEST_CASE_FIXTURE(fixture, "spawn_lite_pull_consumer refuses a config it "
                             "cannot run") {
    lite_pull_consumer_config bad;
    bad.client.namesrv = "10.0.0.1:9876";
    bad.client.directory = inst->directory;
    bad.subscriptions = {{"TopicA", "*"}};
    SUBCASE("no group") {
    }
    SUBCASE("nothing to read") {
      bad.group = "G";
      bad.subscriptions.clear();
    }
    SUBCASE("an unknown strategy") {
      bad.group = "G";
      bad.allocate_strategy = "NOPE";
    }
    SUBCASE("a malformed NameServer list") {
      bad.group = "G";
      bad.client.namesrv = "nohost";
    }
    auto c = spawn_lite_pull_consumer(sys, bad);
    REQUIRE_FALSE(c);
    CHECK_EQ(c.error(), errc::invalid_parameter);
  }

  TEST_CASE_FIXTURE(fixture, "an undecodable record and a record damaged "
                             "in the store are skipped, the rest polled") {
    broker->append("TopicA", 0, "first", "TagA", "k");
    broker->append("TopicA", 0, "not zlib", "TagA", "k", true);
    broker->append("TopicA", 0, "third", "TagA", "k");
    broker->append("TopicA", 0, "damaged", "TagA", "k");
    broker->append("TopicA", 0, "fifth", "TagA", "k");
    broker->damaged.insert({"TopicA", 0, 3});
    auto c = start();
    std::vector<int64_t> got;
    for (int i = 0; i < 3 && got.size() < 3; ++i)
      for (auto& m : poll(c))
        got.push_back(m.queue_offset);
    CHECK_EQ(got, std::vector<int64_t>{0, 2, 4});
    auto d = dump(c);
    CHECK_EQ(d["queues"][0]["undecodable"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "an invalid group name is refused") {
    auto bad = cfg;
    bad.client.namesrv = "10.0.0.1:9876";
    bad.client.directory = inst->directory;
    bad.assigned.clear();
    bad.subscriptions = {{"TopicA", "*"}};
    for (auto group : {std::string{"g g"}, std::string(300, 'g')}) {
      bad.group = group;
      auto c = spawn_lite_pull_consumer(sys, bad);
      REQUIRE_FALSE(c);
      CHECK_EQ(c.error(), errc::invalid_parameter);
    }
  }

  TEST_CASE_FIXTURE(fixture, "a malformed tag expression is refused") {
    lite_pull_consumer_config bad;
    bad.group = "G";
    bad.client.namesrv = "10.0.0.1:9876";
    bad.client.directory = inst->directory;
    bad.subscriptions = {{"TopicA", "a || "}};
    auto c = spawn_lite_pull_consumer(sys, bad);
    REQUIRE_FALSE(c);
    CHECK_EQ(c.error(), errc::subscription_parse_failed);
  }
}
