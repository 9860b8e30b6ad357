// The pull processor and the hold service on the real store actors (temp
// dir, deterministic coordinator, virtual clock): every pull status and its
// offsets, transfer limits, refusals, commit offsets, and long polling
// (answered on arrival, filtered by tag, timed out, many pulls at once).
#include "actors/broker/processor/pull_processor.hpp"

#include <chrono>
#include <memory>
#include <random>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "messages/common/errors.hpp"
#include "tests/actors/broker/topic_table_stub.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/test_seed.hpp"

#include "actors/broker/processor/pull_hold_service.hpp"
#include "actors/broker/store/store_actors.hpp"
#include "actors/broker/table/consumer_offset_table.hpp"
#include "actors/broker/table/subscription_group_table.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::deterministic_fixture {
  test::temp_dir dir;
  std::shared_ptr<storage::message_store> store;
  store_actors actors;
  topic_config_table_actor topics;
  consumer_offset_table_actor offsets;
  pull_hold_service_actor hold;
  pull_processor_actor processor;

  explicit fixture(size_t segment_size = 64 * 1024,
                   size_t in_memory_bytes = 0) {
    auto cfg = test::small_config(dir.path());
    cfg.segment_size = segment_size;
    cfg.in_memory_bytes = in_memory_bytes;
    cfg.retention = std::chrono::minutes{10};
    store = test::open_store(cfg);
    actors = spawn_store_actors(sys, store, false, 0s);
    track(actors.commit_log);
    track(actors.flusher);
    track(actors.queue_service);
    sched.run();
    topics = spawn(test::topic_table_stub,
                   test::topic_table_stub_options{{
                     {"T", test::make_topic("T", 4)},
                     {"WO", test::make_topic("WO", 4, perm::write)},
                   }});
    offsets = spawn(consumer_offset_table, consumer_offset_config{},
                    actors.queue_service);
    hold = spawn(pull_hold_service, actors.queue_service,
                 caf::duration{caf::infinite});
    pull_processor_config pcfg;
    // RocketMQ's cap, so that a pull of 100 stops at it.
    pcfg.max_transfer_count = 32;
    processor = spawn(pull_processor, pcfg, topics, actors.queue_service,
                      offsets, hold, subscription_group_table_actor{});
    sched.run();
  }

  ~fixture() {
    caf::anon_send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
    sched.run();
  }

  void put(int n, int first = 0, std::string tags = "", int32_t queue = 0,
           std::string pad = "") {
    std::vector<store_message> msgs;
    for (int i = first; i < first + n; ++i)
      msgs.push_back(
        test::make_message("T", queue, "m" + std::to_string(i) + pad, tags));
    auto res = ask<std::vector<put_result>>(actors.commit_log,
                                            caf::put_atom::value, msgs);
    REQUIRE_EQ(res.size(), static_cast<size_t>(n));
  }

  static pull_message_request pull_req(int64_t offset, std::string sub = "*",
                                       int32_t queue = 0) {
    pull_message_request req;
    req.consumer_group = "G";
    req.topic = "T";
    req.queue_id = queue;
    req.queue_offset = offset;
    req.subscription = std::move(sub);
    return req;
  }

  pull_message_result pull(pull_message_request req) {
    return ask<pull_message_result>(processor, std::move(req));
  }

  caf::error refused(pull_message_request req) {
    return ask_error<pull_message_result>(processor, std::move(req));
  }

  static pull_status status(const pull_message_result& res) {
    return static_cast<pull_status>(res.status);
  }

  template <class Handle>
  nlohmann::json dump(const Handle& hdl) {
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }

  // A suspended pull: sent, not answered yet.
  auto suspend(int64_t offset, std::string sub = "*",
               int64_t timeout_ms = 15000) {
    auto req = pull_req(offset, std::move(sub));
    req.sys_flag = pull_sys_flag::suspend;
    req.suspend_timeout_ms = timeout_ms;
    auto rh = self->request(processor, caf::infinite, req);
    sched.run();
    return rh;
  }

  template <class Handle>
  pull_message_result answer(Handle& rh) {
    pull_message_result result;
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive([&](const pull_message_result& x) { result = x; },
               [&](const caf::error& err) {
                 FAIL("unexpected error: " << sys.render(err));
               });
    return result;
  }
};

// Segments of 4 KiB, so that retention can drop the start of a queue.
struct small_segments : fixture {
  small_segments() : fixture(4096) {
    // nop
  }

  // Ten 1 KiB messages in four segments; the first three segments expire,
  // so queue T/0 starts at 9.
  void put_and_expire() {
    for (int i = 0; i < 10; ++i)
      put(1, i, "", 0, std::string(1000, 'x'));
    REQUIRE(store->flush(store->write_offset()));
    REQUIRE_EQ(store->delete_expired(INT64_MAX / 2), 3u);
    store->clean_consume_queues();
    REQUIRE_EQ(store->offsets("T", 0).min_offset, 9);
  }
};

// slaveReadEnable on a store that keeps 1,000 bytes "in memory", with a
// memory-only subscription group table.
struct slave_read_fixture : fixture {
  subscription_group_table_actor groups;
  pull_processor_actor reader;

  slave_read_fixture() : fixture(64 * 1024, 1000) {
    groups = spawn(subscription_group_table,
                   subscription_group_table_options{});
    pull_processor_config pcfg;
    pcfg.slave_read_enable = true;
    reader = spawn(pull_processor, pcfg, topics, actors.queue_service, offsets,
                   hold, groups);
    sched.run();
  }

  int64_t suggested(int64_t offset, std::string group = "G") {
    auto req = pull_req(offset);
    req.consumer_group = std::move(group);
    req.max_msg_nums = 1;
    auto res = ask<pull_message_result>(reader, req);
    REQUIRE_EQ(status(res), pull_status::found);
    return res.suggest_which_broker_id;
  }
};

} // namespace

TEST_SUITE("broker.pull_processor") {
  TEST_CASE_FIXTURE(fixture, "a slave keeps a pull past its copy's end "
                             "waiting instead of moving the offset back") {
    put(3);
    // A master corrects the offset: the consumer goes back to 3.
    auto res = pull(pull_req(5));
    CHECK_EQ(status(res), pull_status::offset_illegal);
    CHECK_EQ(res.next_begin_offset, 3);
    pull_processor_config pcfg;
    pcfg.slave = true;
    auto slave = spawn(pull_processor, pcfg, topics, actors.queue_service,
                       offsets, hold, subscription_group_table_actor{});
    sched.run();
    // A slave's copy lags the master the consumer read at: same offset.
    res = ask<pull_message_result>(slave, pull_req(5));
    CHECK_EQ(status(res), pull_status::no_new_msg);
    CHECK_EQ(res.next_begin_offset, 5);
    // A long poll there waits until the copy has offset 5.
    auto req = pull_req(5);
    req.sys_flag = pull_sys_flag::suspend;
    req.suspend_timeout_ms = 15000;
    auto rh = self->request(slave, caf::infinite, req);
    sched.run();
    CHECK(self->mailbox().empty());
    put(2, 3);
    CHECK(self->mailbox().empty());
    put(1, 5);
    res = answer(rh);
    CHECK_EQ(status(res), pull_status::found);
    CHECK_EQ(test::bodies(res.buffer), (std::vector<std::string>{"m5"}));
  }

  TEST_CASE_FIXTURE(slave_read_fixture,
                    "slaveReadEnable: a read far behind the log's end "
                    "suggests the group's slave, a near one its broker") {
    // 40 records of about 130 bytes: the first ones lie more than 1,000
    // bytes behind the end.
    put(40, 0, "", 0, std::string(64, 'x'));
    // An unknown group: RocketMQ's defaults (1 when slow, else 0).
    CHECK_EQ(suggested(0, "unknown"), 1);
    CHECK_EQ(suggested(39, "unknown"), 0);
    subscription_group_config g;
    g.group_name = "G";
    g.which_broker_when_consume_slowly = 2;
    g.broker_id = 1;
    ask<data_version>(groups, caf::put_atom::value, g);
    CHECK_EQ(suggested(0), 2);
    // Near the end: the group's brokerId (here a slave too).
    CHECK_EQ(suggested(39), 1);
    CHECK_EQ(dump(reader)["suggested_slave"], 3);
    // Without slaveReadEnable the answer always names the master.
    auto res = pull(pull_req(0));
    CHECK_EQ(res.suggest_which_broker_id, 0);
    CHECK_EQ(dump(processor)["suggested_slave"], 0);
  }

  TEST_CASE("store statuses map to RocketMQ's pull statuses") {
    CHECK_EQ(map_get_status(get_status::found, 3), pull_status::found);
    CHECK_EQ(map_get_status(get_status::no_matched_message, 3),
             pull_status::no_matched_msg);
    CHECK_EQ(map_get_status(get_status::offset_found_null, 3),
             pull_status::no_new_msg);
    CHECK_EQ(map_get_status(get_status::offset_overflow_one, 3),
             pull_status::no_new_msg);
    CHECK_EQ(map_get_status(get_status::no_message_in_queue, 0),
             pull_status::no_new_msg);
    CHECK_EQ(map_get_status(get_status::no_message_in_queue, 1),
             pull_status::offset_illegal);
    CHECK_EQ(map_get_status(get_status::offset_overflow_badly, 3),
             pull_status::offset_illegal);
    CHECK_EQ(map_get_status(get_status::offset_too_small, 3),
             pull_status::offset_illegal);
  }

  TEST_CASE("subscriptions parse into tags codes") {
    CHECK(parse_subscription("*")->empty());
    CHECK(parse_subscription("")->empty());
    CHECK(parse_subscription(" * ")->empty());
    auto codes = parse_subscription("tagA || tagB||tagA");
    REQUIRE(codes);
    CHECK_EQ(*codes,
             (std::vector<int64_t>{tags_code("tagA"), tags_code("tagB")}));
    for (auto bad : {"a ||", "||", "a || || b"}) {
      auto res = parse_subscription(bad);
      REQUIRE_FALSE(res);
      CHECK(res.error() == errc::subscription_parse_failed);
    }
  }

  TEST_CASE_FIXTURE(fixture, "found, no new and illegal offsets") {
    put(5);
    auto res = pull(pull_req(0));
    CHECK_EQ(status(res), pull_status::found);
    CHECK_EQ(test::bodies(res.buffer),
             (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4"}));
    CHECK_EQ(res.message_count, 5);
    CHECK_EQ(res.next_begin_offset, 5);
    CHECK_EQ(res.min_offset, 0);
    CHECK_EQ(res.max_offset, 5);
    CHECK_EQ(res.suggest_which_broker_id, 0);
    res = pull(pull_req(3));
    CHECK_EQ(test::bodies(res.buffer), (std::vector<std::string>{"m3", "m4"}));
    // At the end of the queue: nothing new, come back at the same offset.
    res = pull(pull_req(5));
    CHECK_EQ(status(res), pull_status::no_new_msg);
    CHECK_EQ(res.next_begin_offset, 5);
    CHECK(res.buffer.empty());
    // Past the end: illegal, restart at the max offset.
    res = pull(pull_req(9));
    CHECK_EQ(status(res), pull_status::offset_illegal);
    CHECK_EQ(res.next_begin_offset, 5);
    // An empty queue: offset 0 waits, any other offset is illegal.
    res = pull(pull_req(0, "*", 1));
    CHECK_EQ(status(res), pull_status::no_new_msg);
    CHECK_EQ(res.next_begin_offset, 0);
    res = pull(pull_req(3, "*", 1));
    CHECK_EQ(status(res), pull_status::offset_illegal);
    CHECK_EQ(res.next_begin_offset, 0);
    auto d = dump(processor);
    CHECK_EQ(d["actor"], "pull_processor");
    CHECK_EQ(d["found"], 2);
    CHECK_EQ(d["no_new_msg"], 2);
    CHECK_EQ(d["offset_illegal"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "each group's found messages per second over "
                             "the last minute (consumerProgress's TPS)") {
    put(6);
    pull(pull_req(0));
    auto other = pull_req(0);
    other.consumer_group = "H";
    other.max_msg_nums = 2;
    pull(other);
    // Nothing found: no count.
    pull(pull_req(6));
    // The running second does not count yet.
    CHECK_EQ(ask<double>(processor, group_pull_rate_request{"G", ""}), 0.0);
    sched.advance_time(1s);
    CHECK_EQ(ask<double>(processor, group_pull_rate_request{"G", ""}),
             doctest::Approx(6.0 / 60));
    CHECK_EQ(ask<double>(processor, group_pull_rate_request{"G", "T"}),
             doctest::Approx(6.0 / 60));
    CHECK_EQ(ask<double>(processor, group_pull_rate_request{"G", "X"}), 0.0);
    CHECK_EQ(ask<double>(processor, group_pull_rate_request{"H", ""}),
             doctest::Approx(2.0 / 60));
    // A minute later it is gone.
    sched.advance_time(61s);
    CHECK_EQ(ask<double>(processor, group_pull_rate_request{"G", ""}), 0.0);
  }

  TEST_CASE_FIXTURE(small_segments, "an offset below the queue's start is "
                                    "illegal") {
    put_and_expire();
    auto res = pull(pull_req(0));
    CHECK_EQ(status(res), pull_status::offset_illegal);
    CHECK_EQ(res.next_begin_offset, 9);
    CHECK_EQ(res.min_offset, 9);
    CHECK_EQ(res.max_offset, 10);
    res = pull(pull_req(9));
    CHECK_EQ(status(res), pull_status::found);
    CHECK_EQ(res.message_count, 1);
    // A new group cannot start at 0 any more (QUERY_NOT_FOUND rule).
    CHECK(ask_error<int64_t>(offsets, query_offset_request{"G", "T", 0})
          == errc::query_not_found);
  }

  TEST_CASE_FIXTURE(fixture, "a tag filter skips other tags or finds none") {
    put(2, 0, "tagA");
    put(2, 2, "tagB");
    put(1, 4, "tagA");
    auto res = pull(pull_req(0, "tagA"));
    CHECK_EQ(status(res), pull_status::found);
    CHECK_EQ(test::bodies(res.buffer),
             (std::vector<std::string>{"m0", "m1", "m4"}));
    CHECK_EQ(res.next_begin_offset, 5);
    res = pull(pull_req(0, "tagB || tagC"));
    CHECK_EQ(test::bodies(res.buffer), (std::vector<std::string>{"m2", "m3"}));
    res = pull(pull_req(0, "tagC"));
    CHECK_EQ(status(res), pull_status::no_matched_msg);
    CHECK_EQ(res.next_begin_offset, 5);
    CHECK(res.buffer.empty());
  }

  TEST_CASE_FIXTURE(fixture, "max count and max bytes are respected") {
    put(40);
    auto req = pull_req(0);
    req.max_msg_nums = 3;
    auto res = pull(req);
    CHECK_EQ(res.message_count, 3);
    CHECK_EQ(res.next_begin_offset, 3);
    // The broker caps a pull at its max_transfer_count (32 here).
    req.max_msg_nums = 100;
    res = pull(req);
    CHECK_EQ(res.message_count, 32);
    CHECK_EQ(res.next_begin_offset, 32);
    // One record's size plus a byte: one record fits, two do not.
    req.max_msg_nums = 32;
    req.max_msg_bytes = 1;
    res = pull(req);
    CHECK_EQ(res.message_count, 1); // the first record always goes
    auto one = static_cast<int32_t>(res.buffer.size());
    req.max_msg_bytes = 2 * one + 1;
    res = pull(req);
    CHECK_EQ(res.message_count, 2);
    CHECK_LE(res.buffer.size(), static_cast<size_t>(req.max_msg_bytes));
  }

  TEST_CASE_FIXTURE(fixture, "bad topics, queues, subscriptions and groups "
                             "are refused") {
    auto req = pull_req(0);
    req.topic = "Nope";
    CHECK(refused(req) == errc::topic_not_exist);
    req.topic = "WO";
    CHECK(refused(req) == errc::no_permission);
    req = pull_req(0, "*", 4);
    CHECK(refused(req) == errc::invalid_parameter);
    req = pull_req(0, "*", -1);
    CHECK(refused(req) == errc::invalid_parameter);
    req = pull_req(0, "tagA ||");
    CHECK(refused(req) == errc::subscription_parse_failed);
    // An invalid group name has no subscription group config.
    req = pull_req(0);
    req.consumer_group = "bad group";
    CHECK(refused(req) == errc::subscription_group_not_exist);
    req.consumer_group = "";
    CHECK(refused(req) == errc::subscription_group_not_exist);
    CHECK_EQ(dump(processor)["refused"], 7);
  }

  TEST_CASE_FIXTURE(fixture, "a pull with COMMIT_OFFSET commits its offset") {
    put(5);
    auto req = pull_req(3);
    req.sys_flag = pull_sys_flag::commit_offset;
    req.commit_offset = 3;
    CHECK_EQ(status(pull(req)), pull_status::found);
    CHECK_EQ(ask<int64_t>(offsets, query_offset_request{"G", "T", 0}), 3);
    // Without the flag the offset stays.
    req.sys_flag = 0;
    req.commit_offset = 4;
    pull(req);
    CHECK_EQ(ask<int64_t>(offsets, query_offset_request{"G", "T", 0}), 3);
  }

  TEST_CASE_FIXTURE(fixture, "a held pull is answered when a message "
                             "arrives, not before") {
    put(2);
    auto rh = suspend(2);
    CHECK(self->mailbox().empty());
    CHECK_EQ(dump(hold)["held"], 1);
    // The hold watches its queue at the queue service, which tells it when a
    // message arrives there, and only there.
    CHECK_EQ(dump(actors.queue_service)["queue_watches"], 1);
    advance_time(10s, 1s);
    CHECK(self->mailbox().empty());
    // Another queue's message does not wake it.
    put(1, 10, "", 1);
    CHECK(self->mailbox().empty());
    put(1, 2);
    auto res = answer(rh);
    CHECK_EQ(status(res), pull_status::found);
    CHECK_EQ(test::bodies(res.buffer), (std::vector<std::string>{"m2"}));
    CHECK_EQ(res.next_begin_offset, 3);
    auto d = dump(hold);
    CHECK_EQ(d["held"], 0);
    CHECK_EQ(d["woken_on_arrival"], 1);
    // Answered from the read the queue service made when the queue moved.
    CHECK_EQ(d["woken_with_read"], 1);
    CHECK_EQ(d["arrivals"], 1);
    CHECK_EQ(dump(processor)["suspended"], 1);
    CHECK_EQ(dump(actors.queue_service)["queue_watches"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a held pull waits for a matching tag") {
    put(1, 0, "tagA");
    auto rh = suspend(1, "tagA");
    put(2, 1, "tagB");
    CHECK(self->mailbox().empty());
    CHECK_EQ(dump(hold)["held"], 1);
    put(1, 3, "tagA");
    auto res = answer(rh);
    CHECK_EQ(status(res), pull_status::found);
    CHECK_EQ(test::bodies(res.buffer), (std::vector<std::string>{"m3"}));
    CHECK_EQ(res.next_begin_offset, 4);
    // The tagB arrival's read matched nothing; the tagA one answered it.
    CHECK_EQ(dump(hold)["woken_with_read"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a held pull times out with NO_NEW_MSG") {
    put(1);
    auto rh = suspend(1, "*", 15000);
    advance_time(14s, 1s);
    CHECK(self->mailbox().empty());
    CHECK_EQ(dump(hold)["timers"], 1);
    advance_time(1s, 1s);
    auto res = answer(rh);
    CHECK_EQ(status(res), pull_status::no_new_msg);
    CHECK_EQ(res.next_begin_offset, 1);
    auto d = dump(hold);
    CHECK_EQ(d["held"], 0);
    CHECK_EQ(d["expired"], 1);
    CHECK_EQ(d["timers"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "held pulls parked one after another share "
                             "one timer and each times out at its own "
                             "deadline") {
    put(1);
    auto first = suspend(1, "*", 15000);
    advance_time(5s, 1s);
    auto second = suspend(1, "*", 15000);
    // The second deadline comes after the armed one: no timer of its own.
    CHECK_EQ(dump(hold)["timers"], 1);
    advance_time(10s, 1s);
    CHECK_EQ(status(answer(first)), pull_status::no_new_msg);
    // Re-armed for the one left.
    CHECK_EQ(dump(hold)["held"], 1);
    CHECK_EQ(dump(hold)["timers"], 1);
    advance_time(4s, 1s);
    CHECK(self->mailbox().empty());
    advance_time(1s, 1s);
    CHECK_EQ(status(answer(second)), pull_status::no_new_msg);
    CHECK_EQ(dump(hold)["timers"], 0);
    // A shorter timeout parked later is armed on its own.
    auto long_one = suspend(1, "*", 15000);
    auto short_one = suspend(1, "*", 2000);
    CHECK_EQ(dump(hold)["timers"], 2);
    advance_time(2s, 1s);
    CHECK_EQ(status(answer(short_one)), pull_status::no_new_msg);
    CHECK_EQ(dump(hold)["held"], 1);
    put(1, 1);
    CHECK_EQ(status(answer(long_one)), pull_status::found);
  }

  TEST_CASE_FIXTURE(fixture, "a held pull that saw only other tags times out "
                             "with NO_MATCHED_MSG past them") {
    // RocketMQ re-executes the pull at its deadline; the consumer learns
    // the offset after the messages it does not want.
    put(1, 0, "tagA");
    auto rh = suspend(1, "tagA", 5000);
    put(2, 1, "tagB");
    advance_time(5s, 1s);
    auto res = answer(rh);
    CHECK_EQ(status(res), pull_status::no_matched_msg);
    CHECK_EQ(res.next_begin_offset, 3);
  }

  TEST_CASE_FIXTURE(fixture, "many held pulls on one queue are all "
                             "answered") {
    put(3);
    std::vector<decltype(suspend(0))> handles;
    for (int i = 0; i < 5; ++i)
      handles.push_back(suspend(3));
    CHECK_EQ(dump(hold)["held"], 5);
    CHECK(self->mailbox().empty());
    put(1, 3);
    size_t answered = 0;
    for (auto& rh : handles) {
      auto res = answer(rh);
      CHECK_EQ(status(res), pull_status::found);
      CHECK_EQ(test::bodies(res.buffer), (std::vector<std::string>{"m3"}));
      ++answered;
    }
    CHECK_EQ(answered, 5u);
    CHECK_EQ(dump(hold)["held"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a held pull commits its offset once") {
    put(2);
    auto req = pull_req(2);
    req.sys_flag = pull_sys_flag::suspend | pull_sys_flag::commit_offset;
    req.commit_offset = 2;
    auto rh = self->request(processor, caf::infinite, req);
    sched.run();
    CHECK(self->mailbox().empty());
    put(1, 2);
    CHECK_EQ(status(answer(rh)), pull_status::found);
    CHECK_EQ(ask<int64_t>(offsets, query_offset_request{"G", "T", 0}), 2);
    CHECK_EQ(dump(processor)["commits"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "random held pulls wake on their first matching "
                             "message or at their deadline") {
    std::mt19937 rng{test::test_seed()};
    const std::vector<std::string> tags{"A", "B", "C"};
    const std::vector<std::string> subs{"*", "A", "B", "A || C"};
    auto matches = [](const std::string& sub, const std::string& tag) {
      return sub == "*" || sub == tag || (sub == "A || C" && tag != "B");
    };
    put(3, 0, "A");
    int64_t max_offset = 3;
    // Each pull runs in a client actor that records its answer.
    struct outcome {
      bool answered = false;
      pull_message_result res;
    };
    struct expected_pull {
      std::string sub;
      int timeout_s = 0;
      std::shared_ptr<outcome> out = std::make_shared<outcome>();
      std::vector<std::string> matching; // bodies that arrived and match
      bool others = false;               // non-matching ones arrived
      int due_step = -1;                 // step at which it is answered
    };
    std::vector<expected_pull> pulls(8);
    for (auto& p : pulls) {
      p.sub = subs[rng() % subs.size()];
      p.timeout_s = 3 + static_cast<int>(rng() % 10);
      auto req = pull_req(max_offset, p.sub);
      req.sys_flag = pull_sys_flag::suspend;
      req.suspend_timeout_ms = p.timeout_s * 1000;
      auto out = p.out;
      auto proc = processor;
      track(sys.spawn([out, proc, req](caf::event_based_actor* client) {
        client->request(proc, caf::infinite, req)
          .then(
            [out](pull_message_result& res) {
              out->answered = true;
              out->res = std::move(res);
            },
            [out](caf::error&) { out->answered = true; });
      }));
    }
    sched.run();
    CHECK_EQ(dump(hold)["held"], 8);
    int body = 100;
    int elapsed_s = 0;
    for (int step = 1; step <= 24; ++step) {
      if (rng() % 2 == 0) {
        auto tag = tags[rng() % tags.size()];
        put(1, body, tag);
        ++max_offset;
        for (auto& p : pulls) {
          if (p.due_step >= 0)
            continue;
          if (matches(p.sub, tag)) {
            p.matching.push_back("m" + std::to_string(body));
            p.due_step = step;
          } else {
            p.others = true;
          }
        }
        ++body;
      } else {
        advance_time(1s, 1s);
        ++elapsed_s;
        for (auto& p : pulls)
          if (p.due_step < 0 && elapsed_s >= p.timeout_s)
            p.due_step = step;
      }
      for (auto& p : pulls) {
        CAPTURE(step);
        CAPTURE(p.sub);
        CAPTURE(p.timeout_s);
        CHECK_EQ(p.out->answered, p.due_step >= 0);
        if (!p.out->answered || p.matching.empty())
          continue;
        CHECK_EQ(status(p.out->res), pull_status::found);
        CHECK_EQ(test::bodies(p.out->res.buffer), p.matching);
      }
    }
    advance_time(20s, 1s);
    for (auto& p : pulls) {
      CHECK(p.out->answered);
      if (p.matching.empty())
        CHECK_EQ(status(p.out->res), p.others ? pull_status::no_matched_msg
                                              : pull_status::no_new_msg);
    }
    CHECK_EQ(dump(hold)["held"], 0);
  }
}
