// The timer service on the deterministic coordinator, in front of the real
// store actors and send processor on a temp dir; the store, the send
// processor and the service share a wall clock derived from the virtual
// clock, so delays pass in virtual time. A delay fires at its time and not
// before, 100,000 timers over a day fire in order, restarts (clean, and a
// crash that lost the checkpoint's last writes) lose none and deliver none
// twice, over-max delays are refused, the progress answer and the dump.
#include "actors/broker/delayed/timer_service.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/broker/processor/send_processor.hpp"
#include "actors/broker/store/store_actors.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/timer_message.hpp"
#include "tests/actors/broker/store_clock_fixture.hpp"
#include "tests/actors/broker/topic_table_stub.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::store_clock_fixture {
  timer_service_options topts;
  timer_service_actor service;
  send_processor_actor proc;

  fixture() {
    store_cfg.segment_size = 16 * 1024 * 1024;
    store_cfg.cq_units_per_file = 200'000;
    store_cfg.index_slots = 100'003;
    store_cfg.index_entries = 400'000;
    // A day of virtual time must not age segments out under the timers.
    store_cfg.retention = std::chrono::hours{24 * 365};
    store_cfg.disk_clean_ratio = 0.999;
    store_cfg.disk_full_ratio = 0.9999;
    topts.dir = timer_store_dir(dir.path());
    topts.log_segment_entries = 16 * 1024;
    topts.wall_clock = [this] { return wall(); };
    start();
  }

  ~fixture() {
    stop();
  }

  void start() {
    // Hourly store checkpoints: a virtual day would make 86,400 of them.
    open_store(1h);
    service = spawn(timer_service, topts, actors.queue_service,
                    actors.commit_log);
    caf::anon_send(actors.queue_service, caf::subscribe_atom::value,
                   caf::actor_cast<arrival_listener_actor>(service),
                   std::string{timer_topic});
    test::topic_table_stub_options stub;
    topic_config tc;
    tc.topic_name = "TopicT";
    tc.read_queue_nums = 1;
    tc.write_queue_nums = 1;
    stub.topics["TopicT"] = tc;
    auto topics = spawn(test::topic_table_stub, stub);
    send_processor_options sopts;
    sopts.wall_clock = [this] { return wall(); };
    sopts.timer = topts.timer;
    sopts.max_message_size = store_cfg.max_message_size;
    proc = spawn(send_processor, sopts, topics, actors.commit_log);
    sched.run();
  }

  void stop() {
    if (!actors.commit_log)
      return;
    caf::anon_send_exit(service, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(proc, caf::exit_reason::user_shutdown);
    close_store();
    service = nullptr;
    proc = nullptr;
  }

  /// Sends `body` with TIMER_DELAY_MS `delay_ms` through the send
  /// processor.
  send_result send_delayed(std::string body, int64_t delay_ms) {
    send_message_request req;
    req.producer_group = "PG";
    req.topic = "TopicT";
    req.queue_id = 0;
    req.body = body;
    append_property(req.properties, property_uniq_key, "ID-" + body);
    append_property(req.properties, property_timer_delay_ms,
                    std::to_string(delay_ms));
    return ask<send_result>(proc, std::move(req));
  }

  /// Stores timed messages the way the send path does, many per put.
  void put_timed(const std::vector<std::pair<std::string, int64_t>>& xs) {
    std::vector<store_message> batch;
    auto flush = [&] {
      auto res = ask<std::vector<put_result>>(
        actors.commit_log, caf::put_atom::value, std::move(batch));
      for (auto& r : res)
        REQUIRE_FALSE(r.error);
      batch.clear();
    };
    for (auto& [body, delay] : xs) {
      auto msg = test::make_message("TopicT", 0, body, "TagA", "",
                                    "ID-" + body);
      append_property(msg.properties, property_timer_delay_ms,
                      std::to_string(delay));
      auto slot = to_timer(msg, wall(), topts.timer);
      REQUIRE(slot);
      REQUIRE_GT(*slot, 0);
      batch.push_back(std::move(msg));
      if (batch.size() == 500)
        flush();
    }
    if (!batch.empty())
      flush();
  }

  /// Every record of the real queue; `keep` owns the views.
  std::vector<record_view> read(std::vector<get_message_result>& keep) {
    std::vector<record_view> out;
    keep.clear();
    keep.reserve(1000);
    int64_t from = 0;
    for (;;) {
      get_message_request req{"TopicT", 0, from, 1000, 1 << 24, {}};
      keep.push_back(ask<get_message_result>(actors.queue_service, req));
      auto& res = keep.back();
      if (res.status != static_cast<uint8_t>(get_status::found))
        return out;
      auto recs = decode_pulled(res);
      REQUIRE(recs);
      out.insert(out.end(), recs->begin(), recs->end());
      from = res.next_begin_offset;
      REQUIRE_LT(keep.size(), 1000u);
    }
  }

  size_t delivered() {
    std::vector<get_message_result> keep;
    return read(keep).size();
  }

  timer_progress progress() {
    return ask<timer_progress>(service, caf::get_atom::value);
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(service, dump_atom::value));
  }

  /// Every delivered copy is there once, none early: its store time is at
  /// or after its slot (TIMER_OUT_MS). Returns the bodies.
  std::set<std::string> check_delivered_once() {
    std::vector<get_message_result> keep;
    std::set<std::string> seen;
    for (auto& rec : read(keep)) {
      CHECK(seen.insert(std::string{rec.body}).second);
      auto slot = std::stoll(prop(rec, property_timer_out_ms));
      CHECK_GE(rec.store_timestamp, slot);
    }
    return seen;
  }
};

} // namespace

TEST_SUITE("broker.timer_service") {
  TEST_CASE_FIXTURE(fixture, "a delay of 90 s delivers at 90 s and not "
                             "before") {
    auto res = send_delayed("m90", 90'000);
    CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(delivered(), 0u);
    auto p = progress();
    CHECK_EQ(p.pending, 1);
    CHECK_EQ(p.next_due_ms, base_ms + 90'000);
    CHECK_EQ(p.enqueue_behind, 0);
    pass(89'999ms);
    CHECK_EQ(delivered(), 0u);
    pass(1ms);
    std::vector<get_message_result> keep;
    auto recs = read(keep);
    REQUIRE_EQ(recs.size(), 1u);
    auto& rec = recs[0];
    CHECK_EQ(rec.body, "m90");
    CHECK_EQ(rec.topic, "TopicT");
    CHECK_EQ(rec.store_timestamp, base_ms + 90'000);
    CHECK_EQ(prop(rec, property_uniq_key), "ID-m90");
    CHECK_EQ(prop(rec, property_real_topic), "");
    CHECK_EQ(prop(rec, property_timer_delay_ms), "90000");
    p = progress();
    CHECK_EQ(p.pending, 0);
    CHECK_EQ(p.next_due_ms, -1);
    CHECK_EQ(p.delivered, 1);
    CHECK_EQ(p.dequeue_lag_ms, 0);
    auto d = dump();
    CHECK_EQ(d["delivered"], 1);
    CHECK_EQ(d["max_lateness_ms"], 0);
    // Nothing more happens, however long we wait, and an idle wheel is
    // not behind.
    pass(3h);
    CHECK_EQ(delivered(), 1u);
    CHECK_EQ(progress().dequeue_lag_ms, 0);
  }

  TEST_CASE_FIXTURE(fixture, "a slave's timer fires nothing and passes "
                             "the slots its master fired") {
    stop();
    topts.slave = true;
    start();
    put_timed({{"m10", 10'000}, {"m100", 100'000}});
    pass(200s);
    CHECK_EQ(delivered(), 0u);
    CHECK_EQ(progress().pending, 2);
    // The master fired up to 50 s: the slave's wheel passes that slot.
    timer_progress master;
    master.read_ms = base_ms + 50'000;
    caf::anon_send(service, sync_atom::value, master);
    sched.run();
    CHECK_EQ(progress().pending, 1);
    CHECK_EQ(progress().read_ms, base_ms + 50'000);
    // An older read time moves nothing back.
    master.read_ms = base_ms + 20'000;
    caf::anon_send(service, sync_atom::value, master);
    sched.run();
    CHECK_EQ(progress().read_ms, base_ms + 50'000);
    CHECK_EQ(delivered(), 0u);
    CHECK_EQ(dump()["master_read_ms"], base_ms + 50'000);
  }

  TEST_CASE_FIXTURE(fixture, "a delay beyond timerMaxDelaySec is refused") {
    send_message_request req;
    req.topic = "TopicT";
    req.body = "far";
    append_property(req.properties, property_timer_delay_sec,
                    std::to_string(3 * 86'400 + 1));
    CHECK_EQ(ask_error<send_result>(proc, std::move(req)),
             errc::message_illegal);
    CHECK_EQ(progress().pending, 0);
  }

  TEST_CASE_FIXTURE(fixture, "100,000 timers over a day fire in order at "
                             "their times") {
    std::mt19937 rng{test::test_seed()};
    std::uniform_int_distribution<int64_t> delay{1000, 86'400'000};
    std::vector<std::pair<std::string, int64_t>> xs;
    for (int i = 0; i < 100'000; ++i)
      xs.emplace_back("t" + std::to_string(i), delay(rng));
    // Checkpoints at most hourly: 24 instead of one per step.
    stop();
    topts.flush_interval_ms = 3'600'000;
    start();
    put_timed(xs);
    sched.run();
    auto p = progress();
    CHECK_EQ(p.pending, 100'000);
    CHECK_EQ(p.enqueue_behind, 0);
    // In steps of 10 s: each fires every slot due within it.
    for (int step = 0; step < 8641; ++step)
      pass(10s);
    CHECK_EQ(progress().pending, 0);
    std::vector<get_message_result> keep;
    auto recs = read(keep);
    REQUIRE_EQ(recs.size(), 100'000u);
    int64_t last_slot = 0;
    std::set<std::string> seen;
    for (auto& rec : recs) {
      auto slot = std::stoll(prop(rec, property_timer_out_ms));
      CHECK_GE(slot, last_slot);
      last_slot = slot;
      // Not before; at most one step late.
      CHECK_GE(rec.store_timestamp, slot);
      CHECK_LT(rec.store_timestamp, slot + 10'000);
      CHECK(seen.insert(std::string{rec.body}).second);
    }
    CHECK_EQ(seen.size(), 100'000u);
    CHECK_EQ(dump()["delivered"], 100'000);
  }

  TEST_CASE_FIXTURE(fixture, "a restart in the middle keeps pending timers") {
    std::vector<std::pair<std::string, int64_t>> xs;
    for (int i = 0; i < 1000; ++i)
      xs.emplace_back("r" + std::to_string(i), 1000 + i * 3600);
    put_timed(xs);
    sched.run();
    pass(1800s);
    auto before = delivered();
    CHECK_GT(before, 400u);
    CHECK_LT(before, 600u);
    stop();
    start();
    auto d = dump();
    CHECK_EQ(d["rebuilt_at_start"], false);
    CHECK_EQ(progress().pending, static_cast<int64_t>(1000 - before));
    CHECK_EQ(delivered(), before);
    pass(1900s);
    CHECK_EQ(check_delivered_once().size(), 1000u);
  }

  TEST_CASE_FIXTURE(fixture, "a crash that lost the last checkpoints "
                             "delivers none twice") {
    std::vector<std::pair<std::string, int64_t>> xs;
    for (int i = 0; i < 300; ++i)
      xs.emplace_back("c" + std::to_string(i), 1000 + i * 1000);
    put_timed(xs);
    sched.run();
    pass(10s);
    // What the checkpoint said 10 s in: a crash loses what came after.
    auto ckpt = topts.dir + "/timercheck.json";
    auto old = ckpt + ".old";
    std::filesystem::copy_file(ckpt, old);
    pass(100s);
    auto before = delivered();
    CHECK_GT(before, 90u);
    stop();
    std::filesystem::rename(old, ckpt);
    start();
    auto d = dump();
    CHECK_EQ(d["rebuilt_at_start"], true);
    // The slots since the old checkpoint fired again: all found delivered.
    CHECK_EQ(delivered(), before);
    CHECK_GT(dump()["verified"].get<int64_t>(), 80);
    pass(300s);
    CHECK_EQ(check_delivered_once().size(), 300u);
    CHECK_EQ(progress().pending, 0);
  }
}
