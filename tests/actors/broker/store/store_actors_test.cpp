// The store actors on the deterministic coordinator: acknowledgements under
// both flush modes, group commit, failed syncs, back-pressure, the async
// flush timer on the virtual clock, reads through the queue service, dumps.
#include "actors/broker/store/store_actors.hpp"

#include <chrono>
#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::deterministic_fixture {
  test::temp_dir dir;
  storage::store_config cfg = test::small_config(dir.path());
  std::shared_ptr<storage::message_store> store;
  store_actors actors;

  void start(storage::flush_mode mode) {
    cfg.flush = mode;
    store = test::open_store(cfg);
    actors = spawn_store_actors(sys, store, false, 1s);
    track(actors.commit_log);
    track(actors.flusher);
    track(actors.queue_service);
    track(actors.warmer);
    sched.run();
  }

  ~fixture() {
    // Stop the actors (the writer closes the store) before `dir` goes.
    if (actors.commit_log)
      caf::anon_send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
    sched.run();
  }

  static std::vector<store_message> batch(int n, int first = 0) {
    std::vector<store_message> result;
    for (int i = first; i < first + n; ++i)
      result.push_back(test::make_message("T", 0, "m" + std::to_string(i)));
    return result;
  }

  std::vector<put_result> put(std::vector<store_message> msgs) {
    return ask<std::vector<put_result>>(actors.commit_log, caf::put_atom::value,
                                        std::move(msgs));
  }

  /// Sends `n` one-message appends before the writer runs any, then runs
  /// them all; every result in order.
  std::vector<put_result> put_concurrently(int n) {
    std::vector<decltype(self->request(actors.commit_log, caf::infinite,
                                       caf::put_atom::value, batch(1)))>
      handles;
    for (int i = 0; i < n; ++i)
      handles.push_back(self->request(actors.commit_log, caf::infinite,
                                      caf::put_atom::value, batch(1, i)));
    sched.run();
    std::vector<put_result> all;
    for (auto& h : handles)
      h.receive(
        [&](std::vector<put_result>& r) {
          all.insert(all.end(), r.begin(), r.end());
        },
        [&](caf::error& err) { FAIL(sys.render(err)); });
    return all;
  }

  template <class Handle>
  nlohmann::json dump(const Handle& hdl) {
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }

  /// Starts under async flush, puts 3 messages: the warm actor's dump.
  nlohmann::json warm_dump_after_async_puts() {
    start(storage::flush_mode::async);
    put(batch(3));
    sched.run();
    return dump(actors.warmer);
  }

  std::vector<std::string> read_all() {
    get_message_request req{"T", 0, 0, 1000, 1 << 20, {}};
    return test::bodies(
      ask<get_message_result>(actors.queue_service, req).buffer);
  }
};

} // namespace

// Counts the queue service's arrival notes.
arrival_listener_actor::behavior_type
counting_listener(arrival_listener_actor::pointer, std::shared_ptr<int> count) {
  return {[count](arrival_atom, int64_t) { ++*count; }};
}

TEST_SUITE("broker.store_actors") {
  TEST_CASE_FIXTURE(fixture, "under sync flush the warm actor writes zeros "
                             "ahead of the writer") {
    cfg.warm_ahead_bytes = 16 * 1024;
    cfg.warm_chunk_bytes = 4096;
    start(storage::flush_mode::sync);
    // Asked at the start, when the log has no segment yet: nothing to warm.
    auto d = dump(actors.warmer);
    CHECK_EQ(d["actor"], "warm_service");
    CHECK_EQ(d["requests"], 1);
    CHECK_EQ(d["warm_end"], 0);
    // The first put makes the segment and asks again.
    REQUIRE_EQ(put(batch(1)).size(), 1u);
    sched.run();
    d = dump(actors.warmer);
    CHECK_EQ(d["requests"], 2);
    CHECK_EQ(d["warm_end"], store->write_offset() + 16 * 1024);
    // And again once less than half is left ahead of the writer.
    for (int i = 0; i < 10; ++i)
      REQUIRE_EQ(
        put({test::make_message("T", 0, std::string(1000, 'x'))}).size(), 1u);
    sched.run();
    d = dump(actors.warmer);
    CHECK_GE(d["requests"], 3);
    CHECK_EQ(d["failures"], 0);
    CHECK_GE(d["warm_end"].get<int64_t>(), store->write_offset() + 8 * 1024);
    CHECK_EQ(read_all().size(), 11u);
  }

  TEST_CASE_FIXTURE(fixture, "under async flush the warm actor keeps its "
                             "smaller range ahead of the writer") {
    cfg.populate_ahead_bytes = 16 * 1024;
    cfg.warm_chunk_bytes = 4096;
    auto d = warm_dump_after_async_puts();
    CHECK_EQ(d["requests"], 2);
    CHECK_EQ(d["failures"], 0);
    CHECK_EQ(d["warm_end"], store->write_offset() + 16 * 1024);
    CHECK_EQ(read_all().size(), 3u);
  }

  TEST_CASE_FIXTURE(fixture, "with nothing to keep ahead nothing is warmed") {
    cfg.populate_ahead_bytes = 0;
    auto d = warm_dump_after_async_puts();
    CHECK_EQ(d["requests"], 0);
    CHECK_EQ(d["warm_end"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a topic listener hears only of its topic") {
    start(storage::flush_mode::async);
    auto all = std::make_shared<int>(0);
    auto only_u = std::make_shared<int>(0);
    auto a = spawn(counting_listener, all);
    auto u = spawn(counting_listener, only_u);
    caf::anon_send(actors.queue_service, caf::subscribe_atom::value, a);
    caf::anon_send(actors.queue_service, caf::subscribe_atom::value, u,
                   std::string{"U"});
    sched.run();
    put(batch(2));
    sched.run();
    CHECK_GE(*all, 1);
    CHECK_EQ(*only_u, 0);
    auto before = *all;
    put({test::make_message("U", 1, "u0")});
    sched.run();
    CHECK_GT(*all, before);
    CHECK_EQ(*only_u, 1);
    put(batch(1, 5));
    sched.run();
    CHECK_EQ(*only_u, 1);
    CHECK_EQ(dump(actors.queue_service)["topic_listeners"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "async flush acknowledges at once and flushes on "
                             "the timer") {
    start(storage::flush_mode::async);
    auto res = put(batch(3));
    REQUIRE_EQ(res.size(), 3u);
    CHECK_EQ(res[2].queue_offset, 2);
    CHECK_EQ(read_all(), (std::vector<std::string>{"m0", "m1", "m2"}));
    auto d = dump(actors.commit_log);
    CHECK_EQ(d["actor"], "commit_log_writer");
    CHECK_EQ(d["flush_mode"], "async");
    CHECK_EQ(d["flushed_offset"], 0); // less than 16 KiB dirty
    CHECK(d.contains("high_watermark_bytes"));
    CHECK(d.contains("low_watermark_bytes"));
    // Little dirty data is flushed by the thorough interval (10 s).
    advance_time(11s, 500ms);
    CHECK_EQ(dump(actors.commit_log)["flushed_offset"], store->write_offset());
    CHECK_GE(dump(actors.flusher)["syncs"].get<int>(), 1);
    CHECK_GE(dump(actors.queue_service)["checkpoints"].get<int>(), 10);
  }

  TEST_CASE_FIXTURE(fixture, "appends that come while a dispatch note is on "
                             "its way ride on it, and every one is read") {
    start(storage::flush_mode::async);
    auto results = put_concurrently(5);
    CHECK_EQ(results.size(), 5u);
    for (auto& r : results)
      CHECK_FALSE(r.error);
    // The writer's first append sent the note; the next four found it on
    // its way, and the one dispatch covered them all.
    CHECK_EQ(dump(actors.queue_service)["dispatch_requests"], 1);
    CHECK_EQ(store->dispatched_offset(), store->write_offset());
    CHECK_EQ(read_all(),
             (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4"}));
    // Released: the next append sends a note of its own.
    put(batch(1, 5));
    CHECK_EQ(dump(actors.queue_service)["dispatch_requests"], 2);
    CHECK_EQ(store->dispatched_offset(), store->write_offset());
  }

  TEST_CASE_FIXTURE(fixture, "sync flush acknowledges only after a covering "
                             "fdatasync") {
    start(storage::flush_mode::sync);
    auto res = put(batch(2));
    REQUIRE_EQ(res.size(), 2u);
    CHECK_FALSE(res[1].error);
    CHECK_GE(store->flushed_offset(), res[1].phys_offset + res[1].size);
    // Readers see it once it is on disk.
    CHECK_EQ(read_all(), (std::vector<std::string>{"m0", "m1"}));
  }

  TEST_CASE_FIXTURE(fixture, "concurrent sync appends share fdatasyncs") {
    start(storage::flush_mode::sync);
    CHECK_EQ(put_concurrently(5).size(), 5u);
    auto syncs = dump(actors.flusher)["syncs"].get<int>();
    CHECK_LT(syncs, 5);
    CHECK_GE(syncs, 1);
  }

  TEST_CASE_FIXTURE(fixture, "a sync append waiting for its fdatasync when "
                             "the store stops gets an error, not silence") {
    start(storage::flush_mode::sync);
    auto rh = self->request(actors.commit_log, caf::infinite,
                            caf::put_atom::value, batch(1));
    sched.run_once(); // the writer appends and asks the flusher
    caf::anon_send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
    sched.run();
    REQUIRE_FALSE(self->mailbox().empty());
    caf::error err;
    rh.receive([](std::vector<put_result>&) { FAIL("acknowledged"); },
               [&](caf::error& x) { err = std::move(x); });
    CHECK(err == errc::service_not_available);
    actors.commit_log = nullptr; // stopped already
  }

  TEST_CASE_FIXTURE(fixture, "a failed fdatasync is an error to the sender, "
                             "never an ack") {
    start(storage::flush_mode::sync);
    cfg.faults->fail_sync = 1;
    auto err = ask_error<std::vector<put_result>>(
      actors.commit_log, caf::put_atom::value, batch(1));
    CHECK(err == errc::io_error);
    // The store refuses everything afterwards.
    err = ask_error<std::vector<put_result>>(actors.commit_log,
                                             caf::put_atom::value, batch(1));
    CHECK(err == errc::io_error);
    CHECK_EQ(dump(actors.flusher)["failures"], 1);
    CHECK_EQ(dump(actors.commit_log)["failed_batches"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "sends are refused above the high watermark "
                             "until the backlog drains") {
    cfg.pending_high_watermark = 150;
    cfg.pending_low_watermark = 50;
    start(storage::flush_mode::async);
    put(batch(2)); // ~190 bytes not yet flushed
    auto err = ask_error<std::vector<put_result>>(
      actors.commit_log, caf::put_atom::value, batch(1));
    CHECK(err == errc::system_busy);
    auto d = dump(actors.commit_log);
    CHECK_EQ(d["busy"], true);
    CHECK_EQ(d["refused_busy"], 1);
    CHECK_EQ(d["high_watermark_bytes"], 150);
    advance_time(10500ms, 500ms); // the thorough flush drains the backlog
    CHECK_EQ(put(batch(1, 2)).size(), 1u);
    CHECK_EQ(dump(actors.commit_log)["busy"], false);
  }

  TEST_CASE_FIXTURE(fixture, "per-message errors and duplicates come back in "
                             "the batch") {
    start(storage::flush_mode::async);
    auto msgs = batch(1);
    msgs.push_back(test::make_message("T", 0, std::string(20000, 'x')));
    msgs.push_back(test::make_message("T", 0, "u", "", "", "ID1"));
    msgs.push_back(test::make_message("T", 0, "u", "", "", "ID1"));
    auto res = put(msgs);
    REQUIRE_EQ(res.size(), 4u);
    CHECK_FALSE(res[0].error);
    CHECK(res[1].error == errc::message_illegal);
    CHECK_FALSE(res[2].duplicate);
    CHECK(res[3].duplicate);
    CHECK_EQ(res[3].queue_offset, res[2].queue_offset);
    CHECK_EQ(dump(actors.commit_log)["duplicates"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "the queue_service answers offsets, lookups and "
                             "queries") {
    start(storage::flush_mode::async);
    auto msgs = batch(3);
    msgs[1] = test::make_message("T", 0, "m1", "", "K1", "U1");
    auto res = put(msgs);
    CHECK_EQ(ask<queue_offsets>(actors.queue_service,
                                get_offset_request{"T", 0}),
             queue_offsets{0, 3});
    auto raw = ask<std::string>(actors.queue_service, caf::get_atom::value,
                                res[2].phys_offset);
    CHECK_EQ(test::bodies(raw), std::vector<std::string>{"m2"});
    auto err = ask_error<std::string>(actors.queue_service,
                                      caf::get_atom::value, int64_t{1});
    CHECK(err == errc::corrupt_data);
    auto q = ask<query_message_result>(actors.queue_service,
                                       query_message_request{"T", "K1"});
    CHECK_EQ(test::bodies(q.buffer), std::vector<std::string>{"m1"});
    CHECK_EQ(
      ask<int64_t>(actors.queue_service, search_offset_request{"T", 0, 0}), 0);
    CHECK_EQ(ask<int64_t>(actors.queue_service, checkpoint_atom::value),
             store->dispatched_offset());
    auto d = dump(actors.queue_service);
    CHECK_EQ(d["actor"], "queue_service");
    CHECK_EQ(d["consume_queues"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt record is an error answer, counted "
                             "in the dumps") {
    std::vector<put_result> res;
    {
      auto st = test::open_store(cfg);
      res = test::put_n(*st, 6);
      REQUIRE_FALSE(st->close());
    }
    // A flipped magic in the last segment: recovery skips and reports it.
    test::flip_byte(test::segment_path(dir.path(), 0),
                    static_cast<size_t>(res[2].phys_offset + 5));
    start(storage::flush_mode::async);
    CHECK_EQ(dump(actors.commit_log)["recovery_corrupt_ranges"], 1);
    CHECK_EQ(dump(actors.commit_log)["recovery_torn_tail_offset"], -1);
    CHECK_EQ(dump(actors.queue_service)["recovery_corrupt_ranges"], 1);
    // A read from offset 0 stops before it; a read at it is an error.
    get_message_request req{"T", 0, 0, 1000, 1 << 20, {}};
    auto first = ask<get_message_result>(actors.queue_service, req);
    CHECK_EQ(test::bodies(first.buffer),
             (std::vector<std::string>{"m0", "m1"}));
    CHECK_EQ(first.next_begin_offset, 2);
    req.offset = 2;
    auto err = ask_error<get_message_result>(actors.queue_service, req);
    CHECK_EQ(err, errc::corrupt_data);
    CHECK_NE(error_detail(err).find("next offset 3"), std::string::npos);
    req.offset = 3;
    CHECK_EQ(
      test::bodies(ask<get_message_result>(actors.queue_service, req).buffer),
      (std::vector<std::string>{"m3", "m4", "m5"}));
    CHECK_EQ(ask_error<std::string>(actors.queue_service, caf::get_atom::value,
                                    res[2].phys_offset),
             errc::corrupt_data);
    // Every read that met it: the one stopped before it and the two refused.
    CHECK_EQ(dump(actors.queue_service)["corrupt_reads"], 3);
  }

} // TEST_SUITE
