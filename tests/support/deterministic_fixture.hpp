// A doctest fixture that runs actors on CAF's test coordinator: no threads,
// a virtual clock, and every message delivered only when the test says so.
#pragma once

#include <chrono>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "caf/actor.hpp"
#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/exit_reason.hpp"
#include "caf/scheduler/test_coordinator.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "runtime/process/node_config.hpp"

namespace rmq::test {

class deterministic_fixture {
public:
  deterministic_fixture()
    : sys(make_testing(cfg)),
      self(sys, true),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    // nop
  }

  ~deterministic_fixture() {
    // Pending delayed messages keep their receivers alive and the system's
    // destructor waits for all actors: stop what we spawned, or hang.
    for (auto& hdl : spawned_)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
    sched.run();
  }

  /// Spawns an actor and remembers it for shutdown.
  template <class... Ts>
  auto spawn(Ts&&... xs) {
    auto hdl = sys.spawn(std::forward<Ts>(xs)...);
    spawned_.push_back(caf::actor_cast<caf::actor>(hdl));
    sched.run(); // lets the actor run its initialization
    return hdl;
  }

  /// Remembers an actor spawned elsewhere (e.g. by spawn_namesrv or
  /// spawn_store_actors).
  template <class Handle>
  void track(const Handle& hdl) {
    spawned_.push_back(caf::actor_cast<caf::actor>(hdl));
  }

  /// Advances the virtual clock in `step`s, letting actors react after each
  /// step, so periodic timers fire as often as they would in real time.
  void advance_time(caf::timespan total, caf::timespan step) {
    for (caf::timespan t{0}; t < total; t += step) {
      sched.advance_time(step);
      sched.run();
    }
  }

  /// Sends a request and runs all actors; returns the response handle for
  /// `.receive(...)`. Fails instead of blocking when no response arrived.
  template <class Handle, class... Ts>
  auto request(const Handle& hdl, Ts&&... xs) {
    auto rh = self->request(hdl, caf::infinite, std::forward<Ts>(xs)...);
    sched.run();
    REQUIRE_FALSE(self->mailbox().empty());
    return rh;
  }

  /// Sends a request and returns its result, failing the test on an error.
  template <class T, class Handle, class... Ts>
  T ask(const Handle& hdl, Ts&&... xs) {
    T result{};
    request(hdl, std::forward<Ts>(xs)...)
      .receive([&](const T& x) { result = x; },
               [&](const caf::error& err) {
                 FAIL("unexpected error: " << sys.render(err));
               });
    return result;
  }

  /// Sends a request that must fail and returns its error; `T` is the
  /// reply type the request would have on success.
  template <class T, class Handle, class... Ts>
  caf::error ask_error(const Handle& hdl, Ts&&... xs) {
    caf::error result;
    request(hdl, std::forward<Ts>(xs)...)
      .receive([&](const T&) { FAIL("expected an error"); },
               [&](const caf::error& err) { result = err; });
    return result;
  }

  node_config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
  caf::scheduler::test_coordinator& sched;

private:
  static node_config& make_testing(node_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    return cfg;
  }

  std::vector<caf::actor> spawned_;
};

} // namespace rmq::test
