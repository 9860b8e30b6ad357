// The queue service with a helper, on the deterministic coordinator: records
// that need a new consume-queue file and the checkpoint go to the helper;
// while it works, reads and watches wait for it instead of touching the
// store; listeners, watches and waiting dispatch requests are told once it
// is done.
#include "actors/broker/store/queue_service.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/storage/checkpoint.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

// Counts the queue service's arrival notes.
arrival_listener_actor::behavior_type
note_counter(arrival_listener_actor::pointer, std::shared_ptr<int> count) {
  return {[count](arrival_atom, int64_t) { ++*count; }};
}

// Remembers the max offset of each queue note it gets.
queue_watcher_actor::behavior_type watch_counter(queue_watcher_actor::pointer,
                                                 std::shared_ptr<int64_t> max) {
  return {
    [max](arrival_atom, const std::string&, int32_t, int64_t m) { *max = m; },
    [max](arrival_atom, const std::string&, int32_t, int64_t m, int64_t,
          const get_message_result&) { *max = m; },
  };
}

struct fixture : test::deterministic_fixture {
  test::temp_dir dir;
  storage::store_config scfg = test::small_config(dir.path());
  std::shared_ptr<storage::message_store> store = test::open_store(scfg);
  queue_service_actor helper;
  queue_service_actor disp;

  fixture() {
    helper = sys.spawn(queue_service, store, caf::timespan{0},
                       queue_service_actor{});
    disp = spawn(queue_service, store, caf::timespan{1s}, helper);
  }

  ~fixture() {
    caf::anon_send_exit(disp, caf::exit_reason::user_shutdown);
    sched.run();
    REQUIRE_FALSE(store->close());
  }

  void put(int32_t qid, int n) {
    for (int i = 0; i < n; ++i)
      REQUIRE_FALSE(
        store->put(test::make_message("T", qid, "m" + std::to_string(i)), 1, 1)
          .error);
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(disp, dump_atom::value));
  }

  size_t read_count(int32_t qid) {
    get_message_request req{"T", qid, 0, 1000, 1 << 20, {}};
    return ask<get_message_result>(disp, req).phys_offsets.size();
  }
};

} // namespace

TEST_SUITE("broker.queue_service_helper") {
  TEST_CASE_FIXTURE(fixture, "a record that needs a new queue file goes to "
                             "the helper; the rest is dispatched here") {
    auto notes = std::make_shared<int>(0);
    auto listener = spawn(note_counter, notes);
    caf::anon_send(disp, caf::subscribe_atom::value, listener);
    sched.run();
    put(0, 3);
    // The answer waits for the helper, which made the queue's file.
    CHECK_EQ(ask<int64_t>(disp, dispatch_atom::value, store->write_offset()),
             store->write_offset());
    auto d = dump();
    CHECK_EQ(d["has_helper"], true);
    CHECK_EQ(d["helper_dispatches"], 1);
    CHECK_EQ(d["helper_busy"], 0);
    CHECK_EQ(*notes, 1);
    // The file is there now: no helper for more of that queue.
    put(0, 2);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    CHECK_EQ(dump()["helper_dispatches"], 1);
    CHECK_EQ(*notes, 2);
    // A new queue needs the helper again.
    put(1, 1);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    CHECK_EQ(dump()["helper_dispatches"], 2);
    CHECK_EQ(store->dispatched_offset(), store->write_offset());
    CHECK_EQ(read_count(0), 5u);
    CHECK_EQ(read_count(1), 1u);
  }

  TEST_CASE_FIXTURE(fixture, "while the helper works, reads and watches go "
                             "to it or wait, and are answered after") {
    put(0, 2);
    auto max = std::make_shared<int64_t>(-1);
    auto watcher = spawn(watch_counter, max);
    // The note and the read are both in the queue service's mailbox when it
    // runs: the note hands the dispatch to the helper, so the read must
    // not touch the store here.
    caf::anon_send(disp, dispatch_atom::value);
    caf::anon_send(disp, watch_atom::value, watcher, std::string{"T"},
                   int32_t{0}, int64_t{0});
    get_message_request req{"T", 0, 0, 1000, 1 << 20, {}};
    auto rh = self->request(disp, caf::infinite, req);
    sched.run();
    size_t got = 0;
    rh.receive(
      [&](const get_message_result& r) { got = r.phys_offsets.size(); },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(got, 2u);
    auto d = dump();
    CHECK_EQ(d["helper_dispatches"], 1);
    CHECK_EQ(d["helper_requests"], 1);
    // The watch added while the helper was busy was checked at its end.
    CHECK_EQ(*max, 2);
  }

  TEST_CASE_FIXTURE(fixture, "a read from far back goes to the helper") {
    put(0, 3);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    // Everything is near the log's end by default: read here.
    CHECK_EQ(read_count(0), 3u);
    CHECK_EQ(dump()["helper_requests"], 0);
    // A new store whose memory budget is one byte: every record is far back.
    scfg.in_memory_bytes = 1;
    REQUIRE_FALSE(store->close());
    // One open store per folder: the old one goes with its actors first.
    caf::anon_send_exit(disp, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(helper, caf::exit_reason::user_shutdown);
    sched.run();
    store.reset();
    store = test::open_store(scfg);
    helper = sys.spawn(queue_service, store, caf::timespan{0},
                       queue_service_actor{});
    disp = spawn(queue_service, store, caf::timespan{1s}, helper);
    CHECK_EQ(read_count(0), 3u);
    CHECK_EQ(dump()["helper_requests"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "the checkpoint runs on the helper") {
    put(0, 1);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    CHECK_EQ(ask<int64_t>(disp, checkpoint_atom::value),
             store->dispatched_offset());
    CHECK_EQ(dump()["helper_requests"], 1);
    advance_time(1s, 1s);
    auto d = dump();
    CHECK_EQ(d["checkpoints"], 1);
    CHECK_EQ(d["helper_busy"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "dispatches go on while the helper syncs the "
                             "timed checkpoint") {
    put(0, 1);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    REQUIRE(store->flush(store->write_offset()));
    auto before = store->dispatched_offset();
    // The tick: the queue service notes what to sync and hands the syncs to
    // the helper, whose turn has not come yet.
    sched.advance_time(1s);
    while (sched.prioritize(disp) && sched.try_run_once()) {
      // only the queue service's turns
    }
    put(0, 2);
    caf::anon_send(disp, dispatch_atom::value);
    REQUIRE(sched.prioritize(disp));
    sched.run_once();
    // Dispatched here, the checkpoint still at the helper.
    CHECK_GT(store->dispatched_offset(), before);
    CHECK_EQ(store->dispatched_offset(), store->write_offset());
    sched.run();
    auto d = dump();
    CHECK_EQ(d["checkpoints"], 1);
    CHECK_EQ(d["finishing_checkpoint"], false);
    CHECK_EQ(d["helper_busy"], 0);
    // It says what was dispatched when the tick came.
    CHECK_EQ(
      storage::checkpoint::load(scfg.dir + "/checkpoint").dispatched_offset,
      before);
  }

  TEST_CASE_FIXTURE(fixture, "a long stretch of records is dispatched by the "
                             "helper, a short one here") {
    // The queue's file first (that needs the helper anyway).
    put(0, 1);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    CHECK_EQ(dump()["helper_dispatches"], 1);
    // A few records: here.
    put(0, 3);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    CHECK_EQ(dump()["helper_dispatches"], 1);
    // More than 8 KiB of records (a producer's batch): the helper.
    auto before = store->write_offset();
    int n = 0;
    while (store->write_offset() - before <= 8 * 1024) {
      put(0, 1);
      ++n;
    }
    CHECK_EQ(ask<int64_t>(disp, dispatch_atom::value, store->write_offset()),
             store->write_offset());
    auto d = dump();
    CHECK_EQ(d["helper_dispatches"], 2);
    CHECK_EQ(d["helper_busy"], 0);
    CHECK_EQ(store->dispatched_offset(), store->write_offset());
    CHECK_EQ(read_count(0), static_cast<size_t>(4 + n));
  }

  TEST_CASE_FIXTURE(fixture, "a read that meets a damaged unit is refused "
                             "and the helper rebuilds the queue") {
    put(0, 6);
    ask<int64_t>(disp, dispatch_atom::value, store->write_offset());
    REQUIRE_EQ(read_count(0), 6u);
    // Unit 4 of T/0 names unit 1's record, on disk under the open store.
    auto file = dir.path() + "/consumequeue/T/0/"
                + storage::offset_file_name(0);
    auto text = test::read_file(file);
    std::copy(text.begin() + 20, text.begin() + 40, text.begin() + 4 * 20);
    test::write_file(file, text);
    get_message_request req{"T", 0, 4, 1000, 1 << 20, {}};
    auto err = ask_error<get_message_result>(disp, req);
    CHECK(err == errc::system_busy);
    CHECK_NE(describe(err).find("T/0 unit 4"), std::string::npos);
    // The repair the read asked for has run (on the helper): reads work.
    sched.run();
    CHECK_FALSE(store->needs_repair());
    CHECK_EQ(read_count(0), 6u);
    CHECK_EQ(dump()["repaired_queues"], 1);
  }
}
