// A message store on a temp dir behind its real actors, on the
// deterministic coordinator, with a wall clock derived from the virtual
// clock: the base of the fixtures of the services that wait for wall-clock
// times (the schedule and timer services), so delays pass in virtual time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

#include "caf/exit_reason.hpp"
#include "caf/send.hpp"
#include "caf/timespan.hpp"

#include "actors/broker/store/store_actors.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/temp_dir.hpp"

namespace rmq::test {

struct store_clock_fixture : deterministic_fixture {
  /// Wall ms at virtual time 0; a whole second, so timer slots fall on
  /// the delays.
  static constexpr int64_t base_ms = 1'796'083'200'000;

  temp_dir dir;
  /// The store's config; its wall clock is wall().
  storage::store_config store_cfg = small_config(dir.path());
  std::shared_ptr<storage::message_store> store;
  store_actors actors;

  store_clock_fixture() {
    store_cfg.wall_clock = [this] { return wall(); };
  }

  /// Returns the wall clock in ms: base_ms plus the virtual time.
  int64_t wall() {
    auto since = sched.clock().now().time_since_epoch();
    return base_ms
           + std::chrono::duration_cast<std::chrono::milliseconds>(since)
               .count();
  }

  /// Opens the store and spawns its actors attached, writing a store
  /// checkpoint every `checkpoint_interval`.
  void open_store(caf::timespan checkpoint_interval) {
    auto opened = storage::message_store::open(store_cfg, wall());
    REQUIRE(opened);
    store = *opened;
    actors = spawn_store_actors(sys, store, false, checkpoint_interval);
    track(actors.commit_log);
    track(actors.flusher);
    track(actors.queue_service);
    sched.run();
  }

  /// Stops the store actors, with what the caller told to stop before,
  /// and closes the store; `crash` leaves it unclosed, as a killed process
  /// would (the files keep what was written).
  void close_store(bool crash = false) {
    caf::anon_send_exit(actors.commit_log, crash
                                             ? caf::exit_reason::kill
                                             : caf::exit_reason::user_shutdown);
    sched.run();
    actors = store_actors{};
    store.reset();
  }

  /// Advances the virtual clock by `d` in one step and lets actors react.
  void pass(caf::timespan d) {
    sched.advance_time(d);
    sched.run();
  }

  /// Returns the value of property `key` of `rec`, empty if none.
  static std::string prop(const record_view& rec, std::string_view key) {
    return std::string{find_property(rec.properties, key)};
  }
};

} // namespace rmq::test
