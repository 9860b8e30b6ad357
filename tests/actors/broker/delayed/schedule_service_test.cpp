// The schedule service on the deterministic coordinator, in front of the
// real store actors on a temp dir; the store and the service share a wall
// clock derived from the virtual clock, so delays pass in virtual time.
// Every level fires at its delay and not before, order within a level,
// restarts (clean, and a crash between a put and the offset write), the
// send-back and producer paths through the schedule topic, back-off and
// the dump's lag.
#include "actors/broker/delayed/schedule_service.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/broker/processor/send_back_processor.hpp"
#include "actors/broker/processor/send_processor.hpp"
#include "actors/broker/store/store_actors.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_properties.hpp"
#include "tests/actors/broker/commit_log_stand_in.hpp"
#include "tests/actors/broker/store_clock_fixture.hpp"
#include "tests/actors/broker/topic_table_stub.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

// A commit log in front of the real one that refuses whole batches with
// system_busy while `refusing` is set.
commit_log_writer_actor::behavior_type
flaky_commit_log(commit_log_writer_actor::pointer self,
                 std::shared_ptr<bool> refusing, commit_log_writer_actor real) {
  return test::commit_log_stand_in(
    self,
    [refusing, real](commit_log_writer_actor::pointer self,
                     std::vector<store_message>& batch)
      -> caf::result<std::vector<put_result>> {
      if (*refusing)
        return make_error(errc::system_busy, "stand-in is busy");
      return self->delegate(real, caf::put_atom::value, std::move(batch));
    });
}

struct fixture : test::store_clock_fixture {
  schedule_service_options sopts;
  schedule_service_actor service;
  delay_table delays = *parse_delay_levels(default_message_delay_level);

  fixture() {
    sopts.offsets_path = delay_offsets_json_path(dir.path());
    sopts.wall_clock = [this] { return wall(); };
    start();
  }

  ~fixture() {
    stop();
  }

  /// Opens the store and starts the service; with `refusing`, the
  /// service's puts go through a commit log that refuses them while
  /// `*refusing` holds.
  void start(std::shared_ptr<bool> refusing = nullptr) {
    open_store(1s);
    commit_log_writer_actor log = actors.commit_log;
    if (refusing)
      log = spawn(flaky_commit_log, refusing, actors.commit_log);
    service = spawn(schedule_service, sopts, actors.queue_service, log);
    caf::anon_send(actors.queue_service, caf::subscribe_atom::value,
                   caf::actor_cast<arrival_listener_actor>(service),
                   std::string{schedule_topic});
    sched.run();
  }

  /// Stops the service and the store; `crash` leaves the store unclosed,
  /// as a killed process would (the files keep what was written).
  void stop(bool crash = false) {
    if (!actors.commit_log)
      return;
    caf::anon_send_exit(service, caf::exit_reason::user_shutdown);
    close_store(crash);
    service = nullptr;
  }

  void restart(bool crash = false) {
    stop(crash);
    start();
  }

  /// Stores a message for `topic`/`queue` with DELAY `level` the way the
  /// send path does.
  put_result put_delayed(std::string topic, int32_t queue, std::string body,
                         int32_t level, std::string uniq = "") {
    if (uniq.empty())
      uniq = "ID-" + body;
    auto msg = test::make_message(std::move(topic), queue, std::move(body),
                                  "TagA", "", uniq);
    append_property(msg.properties, property_delay, std::to_string(level));
    auto scheduled = to_schedule(msg, 18);
    REQUIRE(scheduled);
    REQUIRE_EQ(*scheduled, std::min(level, 18));
    auto res = ask<std::vector<put_result>>(
      actors.commit_log, caf::put_atom::value, std::vector<store_message>{msg});
    REQUIRE_EQ(res.size(), 1u);
    REQUIRE_FALSE(res[0].error);
    return res[0];
  }

  /// Every record of one queue; `keep` owns the views.
  std::vector<record_view> read(const std::string& topic, int32_t queue,
                                get_message_result& keep) {
    get_message_request req{topic, queue, 0, 1000, 1 << 22, {}};
    keep = ask<get_message_result>(actors.queue_service, req);
    if (keep.status != static_cast<uint8_t>(get_status::found))
      return {};
    auto recs = decode_pulled(keep);
    REQUIRE(recs);
    return *recs;
  }

  size_t count(const std::string& topic, int32_t queue = 0) {
    get_message_result keep;
    return read(topic, queue, keep).size();
  }

  std::vector<std::string> bodies(const std::string& topic, int32_t queue = 0) {
    get_message_result keep;
    std::vector<std::string> out;
    for (auto& rec : read(topic, queue, keep))
      out.emplace_back(rec.body);
    return out;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(service, dump_atom::value));
  }

  nlohmann::json offsets_file() {
    auto doc = json_file::load(sopts.offsets_path);
    REQUIRE(doc);
    return *doc;
  }
};

} // namespace

TEST_SUITE("broker.schedule_service") {
  TEST_CASE_FIXTURE(fixture, "every delay level fires at its time and not "
                             "before") {
    for (int32_t level = 1; level <= 18; ++level)
      put_delayed("TopicD", 0, "L" + std::to_string(level), level);
    // Waiting in their schedule queues, none in the real one.
    for (int32_t level = 1; level <= 18; ++level)
      CHECK_EQ(count(schedule_topic, delay_level_to_queue(level)), 1u);
    CHECK_EQ(count("TopicD"), 0u);
    caf::timespan elapsed{0};
    for (int32_t level = 1; level <= 18; ++level) {
      CAPTURE(level);
      caf::timespan delay = std::chrono::milliseconds{delays[level - 1]};
      pass(delay - 1ms - elapsed);
      CHECK_EQ(count("TopicD"), static_cast<size_t>(level - 1));
      pass(1ms);
      elapsed = delay;
      auto got = bodies("TopicD");
      REQUIRE_EQ(got.size(), static_cast<size_t>(level));
      CHECK_EQ(got.back(), "L" + std::to_string(level));
    }
    // The delivered copies: real topic and queue, DELAY gone, the rest kept.
    get_message_result keep;
    auto recs = read("TopicD", 0, keep);
    REQUIRE_EQ(recs.size(), 18u);
    for (auto& rec : recs) {
      CHECK_EQ(rec.topic, "TopicD");
      CHECK_EQ(prop(rec, property_delay), "");
      CHECK_EQ(prop(rec, "TAGS"), "TagA");
      CHECK_EQ(prop(rec, property_uniq_key), "ID-" + std::string{rec.body});
      CHECK_EQ(prop(rec, property_real_topic), "TopicD");
      CHECK_EQ(prop(rec, property_real_queue_id), "0");
      CHECK_EQ(rec.born_timestamp, 1'700'000'000'000);
      CHECK_EQ(rec.born_ip, 0x0A000001u);
    }
    auto d = dump();
    CHECK_EQ(d["delivered"], 18);
    CHECK_EQ(d["lag_ms"], 0);
    auto file = offsets_file();
    for (int32_t level = 1; level <= 18; ++level)
      CHECK_EQ(file["offsetTable"][std::to_string(level)], 1);
    // Nothing more happens, however long we wait.
    pass(3h);
    CHECK_EQ(count("TopicD"), 18u);
  }

  TEST_CASE_FIXTURE(fixture, "a slave's levels deliver nothing; they take "
                             "the master's offsets") {
    stop();
    sopts.slave = true;
    start();
    put_delayed("TopicD", 0, "L1", 1);
    put_delayed("TopicD", 0, "L2", 2);
    pass(1h);
    CHECK_EQ(count("TopicD"), 0u);
    schedule_progress master;
    master.levels.push_back({1, 1000, 1, 1, 1});
    caf::anon_send(service, sync_atom::value, master);
    sched.run();
    CHECK_EQ(offsets_file()["offsetTable"]["1"], 1);
    CHECK_EQ(offsets_file()["offsetTable"]["2"], 0);
    CHECK_EQ(dump()["slave"], true);
    pass(1h);
    CHECK_EQ(count("TopicD"), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "a level keeps its order across passes and "
                             "queues") {
    stop();
    sopts.batch = 2; // several passes per due group
    start();
    for (int i = 0; i < 7; ++i) {
      put_delayed("TopicO", i % 2, "m" + std::to_string(i), 2);
      pass(100ms);
    }
    pass(5s - 700ms - 1ms);
    CHECK_EQ(count("TopicO", 0) + count("TopicO", 1), 0u);
    pass(1ms);
    CHECK_EQ(bodies("TopicO", 0), std::vector<std::string>{"m0"});
    CHECK_EQ(bodies("TopicO", 1), std::vector<std::string>{});
    pass(600ms);
    CHECK_EQ(bodies("TopicO", 0),
             (std::vector<std::string>{"m0", "m2", "m4", "m6"}));
    CHECK_EQ(bodies("TopicO", 1), (std::vector<std::string>{"m1", "m3", "m5"}));
    CHECK_EQ(offsets_file()["offsetTable"]["2"], 7);
  }

  TEST_CASE_FIXTURE(fixture, "a clean restart loses nothing and delivers "
                             "nothing twice") {
    for (int i = 0; i < 3; ++i) {
      put_delayed("TopicR", 0, "a" + std::to_string(i), 1);
      put_delayed("TopicR", 1, "c" + std::to_string(i), 3);
    }
    pass(1s);
    CHECK_EQ(count("TopicR", 0), 3u);
    CHECK_EQ(count("TopicR", 1), 0u);
    CHECK_EQ(offsets_file()["offsetTable"]["1"], 3);
    CHECK_EQ(offsets_file()["offsetTable"]["3"], 0);
    restart();
    auto progress = ask<schedule_progress>(service, caf::get_atom::value);
    REQUIRE_EQ(progress.levels.size(), 18u);
    CHECK_EQ(progress.levels[0].offset, 3);
    CHECK_EQ(progress.levels[0].max_offset, 3);
    CHECK_EQ(progress.levels[2].offset, 0);
    CHECK_EQ(progress.levels[2].max_offset, 3);
    CHECK_EQ(progress.levels[2].delay_ms, 10'000);
    pass(9s - 1ms);
    CHECK_EQ(count("TopicR", 1), 0u);
    pass(1ms);
    CHECK_EQ(bodies("TopicR", 1), (std::vector<std::string>{"c0", "c1", "c2"}));
    CHECK_EQ(count("TopicR", 0), 3u);
    restart();
    pass(1h);
    CHECK_EQ(count("TopicR", 0), 3u);
    CHECK_EQ(count("TopicR", 1), 3u);
    CHECK_EQ(dump()["delivered"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a crash between the put and the offset write "
                             "delivers nothing twice") {
    // No store dedup: the check must come from the service itself.
    stop();
    store_cfg.dedup_window = 0ms;
    SUBCASE("async flush") {
      store_cfg.flush = storage::flush_mode::async;
    }
    SUBCASE("sync flush") {
      store_cfg.flush = storage::flush_mode::sync;
    }
    start();
    for (int i = 0; i < 4; ++i)
      put_delayed("TopicC", 0, "m" + std::to_string(i), 1);
    put_delayed("TopicC", 0, "late", 2);
    auto before = offsets_file(); // level 1 at 0: as if never written
    pass(1s);
    CHECK_EQ(count("TopicC"), 4u);
    stop(true);
    REQUIRE_FALSE(json_file::save(sopts.offsets_path, before));
    start();
    CHECK_EQ(count("TopicC"), 4u);
    auto d = dump();
    CHECK_EQ(d["levels"][0]["verified"], 4);
    CHECK_EQ(d["levels"][0]["offset"], 4);
    CHECK_EQ(offsets_file()["offsetTable"]["1"], 4);
    // Level 2 was not due before the crash: delivered once, after it.
    pass(4s);
    CHECK_EQ(bodies("TopicC"),
             (std::vector<std::string>{"m0", "m1", "m2", "m3", "late"}));
    CHECK_EQ(dump()["levels"][1]["verified"], 0);
    pass(1h);
    CHECK_EQ(count("TopicC"), 5u);
  }

  TEST_CASE_FIXTURE(fixture, "a crash before the put delivers after the "
                             "restart") {
    stop();
    store_cfg.dedup_window = 0ms;
    auto refusing = std::make_shared<bool>(true);
    start(refusing);
    put_delayed("TopicF", 0, "m0", 1);
    pass(1s);
    CHECK_EQ(count("TopicF"), 0u);
    stop(true);
    start();
    pass(1ms);
    CHECK_EQ(bodies("TopicF"), std::vector<std::string>{"m0"});
    CHECK_EQ(dump()["levels"][0]["verified"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a refused put is retried with back-off, never "
                             "skipped, and the dump shows the lag") {
    stop();
    auto refusing = std::make_shared<bool>(true);
    start(refusing);
    put_delayed("TopicB", 0, "m0", 1);
    put_delayed("TopicB", 0, "m1", 1);
    // Arrival notes make idle levels look within arrival_check_delay.
    auto d = dump();
    CHECK_EQ(d["levels"][0]["next_due_in_ms"], 0);
    pass(100ms);
    d = dump();
    CHECK_EQ(d["levels"][0]["due"], 0);
    CHECK_EQ(d["levels"][0]["next_due_in_ms"], 900);
    pass(900ms);
    // 100, 200, 400, 800, 1600 ms: five retries within 3.1 s.
    for (int i = 0; i < 31; ++i)
      pass(100ms);
    CHECK_EQ(count("TopicB"), 0u);
    d = dump();
    CHECK_EQ(d["levels"][0]["due"], 2);
    CHECK_EQ(d["levels"][0]["lag_ms"], 3100);
    CHECK_EQ(d["lag_ms"], 3100);
    CHECK_EQ(d["levels"][0]["offset"], 0);
    CHECK_GE(d["levels"][0]["failures"].get<int64_t>(), 5);
    CHECK_EQ(offsets_file()["offsetTable"]["1"], 0);
    *refusing = false;
    pass(10s);
    CHECK_EQ(bodies("TopicB"), (std::vector<std::string>{"m0", "m1"}));
    d = dump();
    CHECK_EQ(d["levels"][0]["lag_ms"], 0);
    CHECK_EQ(d["levels"][0]["due"], 0);
    CHECK_EQ(d["levels"][0]["offset"], 2);
    CHECK_EQ(d["delivered"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a send-back waits 3 + reconsume times levels "
                             "in the schedule topic") {
    test::topic_table_stub_options topts;
    topts.create_group_topics = true;
    auto topics = spawn(test::topic_table_stub, topts);
    send_back_processor_options bopts;
    bopts.seed = test::test_seed();
    auto back = spawn(send_back_processor, bopts, topics, actors.queue_service,
                      actors.commit_log);
    auto original = test::make_message("TopicA", 0, "payload", "TagA", "",
                                       "ID-back");
    auto res
      = ask<std::vector<put_result>>(actors.commit_log, caf::put_atom::value,
                                     std::vector<store_message>{original});
    REQUIRE_FALSE(res[0].error);
    ask<caf::ok_atom>(back,
                      consumer_send_back_request{res[0].phys_offset, "G", 0, "",
                                                 "TopicA", -1, false});
    CHECK_EQ(count("%RETRY%G"), 0u);
    get_message_result keep;
    auto waiting = read(schedule_topic, delay_level_to_queue(3), keep);
    REQUIRE_EQ(waiting.size(), 1u);
    CHECK_EQ(prop(waiting[0], property_real_topic), "%RETRY%G");
    CHECK_EQ(prop(waiting[0], property_delay), "3");
    pass(10s - 1ms);
    CHECK_EQ(count("%RETRY%G"), 0u);
    pass(1ms);
    auto retry = read("%RETRY%G", 0, keep);
    REQUIRE_EQ(retry.size(), 1u);
    CHECK_EQ(retry[0].reconsume_times, 1);
    CHECK_EQ(retry[0].body, "payload");
    CHECK_EQ(prop(retry[0], property_delay), "");
    CHECK_EQ(prop(retry[0], property_retry_topic), "TopicA");
    CHECK_EQ(prop(retry[0], property_uniq_key), "ID-back");
    // The retry fails again: level 3 + 1 = 30 s.
    auto again = retry[0].phys_offset;
    ask<caf::ok_atom>(back, consumer_send_back_request{again, "G", 0, "",
                                                       "TopicA", -1, false});
    pass(30s - 1ms);
    CHECK_EQ(count("%RETRY%G"), 1u);
    pass(1ms);
    retry = read("%RETRY%G", 0, keep);
    REQUIRE_EQ(retry.size(), 2u);
    CHECK_EQ(retry[1].reconsume_times, 2);
  }

  TEST_CASE_FIXTURE(fixture, "a producer's DELAY=2 arrives after 5 s, the "
                             "result names the queue asked for") {
    test::topic_table_stub_options topts;
    topic_config tc;
    tc.topic_name = "TopicP";
    tc.read_queue_nums = tc.write_queue_nums = 4;
    tc.perm = perm::read_write;
    topts.topics[tc.topic_name] = tc;
    auto topics = spawn(test::topic_table_stub, topts);
    send_processor_options popts;
    popts.seed = test::test_seed();
    popts.max_message_size = store_cfg.max_message_size;
    popts.wall_clock = [this] { return wall(); };
    auto proc = spawn(send_processor, popts, topics, actors.commit_log);
    send_message_request req;
    req.producer_group = "PG";
    req.topic = "TopicP";
    req.queue_id = 2;
    req.body = "later";
    append_property(req.properties, property_delay, "2");
    auto first = ask<send_result>(proc, req);
    CHECK_EQ(first.status, static_cast<uint8_t>(send_status::send_ok));
    CHECK_EQ(first.queue_id, 2);
    CHECK_EQ(first.queue_offset, 0); // in the schedule queue
    req.body = "later too";
    auto second = ask<send_result>(proc, req);
    CHECK_EQ(second.queue_offset, 1);
    CHECK_EQ(count(schedule_topic, 1), 2u);
    pass(5s - 1ms);
    CHECK_EQ(count("TopicP", 2), 0u);
    pass(1ms);
    CHECK_EQ(bodies("TopicP", 2),
             (std::vector<std::string>{"later", "later too"}));
    get_message_result keep;
    auto recs = read("TopicP", 2, keep);
    CHECK_EQ(prop(recs[0], property_uniq_key), first.msg_id);
    auto pd = nlohmann::json::parse(ask<std::string>(proc, dump_atom::value));
    CHECK_EQ(pd["scheduled"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt offsets file is kept aside and "
                             "nothing is delivered twice") {
    for (int i = 0; i < 3; ++i)
      put_delayed("TopicX", 0, "m" + std::to_string(i), 1);
    pass(1s);
    CHECK_EQ(count("TopicX"), 3u);
    stop();
    {
      std::ofstream out{sopts.offsets_path, std::ios::trunc};
      out << "{not json";
    }
    start();
    CHECK(std::filesystem::exists(sopts.offsets_path + ".corrupt.1"));
    put_delayed("TopicX", 0, "m3", 1);
    pass(1s);
    CHECK_EQ(bodies("TopicX"),
             (std::vector<std::string>{"m0", "m1", "m2", "m3"}));
    CHECK_EQ(dump()["levels"][0]["verified"], 3);
  }

  TEST_CASE_FIXTURE(fixture, "a damaged schedule record is passed, the "
                             "others are delivered") {
    put_delayed("TopicZ", 0, "first", 1);
    auto bad = put_delayed("TopicZ", 0, "damaged-body", 1);
    put_delayed("TopicZ", 0, "third", 1);
    // Flip a byte of the middle record's body: its CRC no longer matches.
    auto seg = test::segment_path(dir.path(), 0);
    std::ifstream in{seg, std::ios::binary};
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    auto at = bytes.find("damaged-body", static_cast<size_t>(bad.phys_offset));
    REQUIRE_NE(at, std::string::npos);
    test::flip_byte(seg, at);
    pass(1s);
    CHECK_EQ(bodies("TopicZ"), (std::vector<std::string>{"first", "third"}));
    auto d = dump();
    CHECK_EQ(d["levels"][0]["dropped"], 1);
    CHECK_EQ(d["levels"][0]["offset"], 3);
  }

  TEST_CASE_FIXTURE(fixture, "no timer runs while nothing is due") {
    // Idle: the service armed nothing (the store actors have their own).
    CHECK_EQ(dump()["levels"][0]["next_due_in_ms"], 0);
    auto d = dump();
    for (auto& lv : d["levels"])
      CHECK_EQ(lv["busy"], false);
    put_delayed("TopicI", 0, "m", 18);
    pass(100ms);
    d = dump();
    CHECK_EQ(d["levels"][17]["next_due_in_ms"], 7'200'000 - 100);
    CHECK_EQ(d["levels"][17]["due"], 0);
    CHECK_GE(d["arrivals"].get<int64_t>(), 1);
  }
}
