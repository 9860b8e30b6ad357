// A test double in front of a real broker_live_table that stalls like a
// busy table: once armed, the next request and everything after it wait
// `stall` on the actor clock, then reach the table in arrival order. Only
// the messages the scan timer and the front actor send on the paths under
// test are forwarded.
#pragma once

#include <deque>
#include <functional>
#include <vector>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/broker_live_table.hpp"

namespace rmq::test {

using stall_atom = caf::atom_constant<caf::atom("stall")>;
using release_atom = caf::atom_constant<caf::atom("release")>;

using stalling_live_table_actor = caf::typed_actor<
  caf::replies_to<scan_atom>::with<std::vector<unregistration>>,
  caf::replies_to<conn_lost_atom,
                  caf::actor_addr>::with<std::vector<unregistration>>,
  caf::replies_to<unregister_broker_request>::with<unregistration>,
  caf::reacts_to<unreport_atom>,
  // Arms a stall for the next request.
  caf::reacts_to<stall_atom>, caf::reacts_to<release_atom>,
  caf::replies_to<dump_atom>::with<std::string>>;

struct stalling_live_table_state {
  broker_live_table_actor real;
  caf::timespan stall{0};
  bool armed = false;
  bool stalled = false;
  std::deque<std::function<void()>> backlog;
  static inline const char* name = "stalling_live_table";
};

/// Returns the double as the live table handle the actors expect.
template <class Handle>
broker_live_table_actor as_live_table(const Handle& hdl) {
  return caf::actor_cast<broker_live_table_actor>(hdl);
}

inline stalling_live_table_actor::behavior_type stalling_live_table(
  stalling_live_table_actor::stateful_pointer<stalling_live_table_state> self,
  broker_live_table_actor real, caf::timespan stall) {
  self->state.real = std::move(real);
  self->state.stall = stall;
  // Runs `f` now, or after the stall in arrival order.
  auto run = [self](bool is_request, std::function<void()> f) {
    auto& st = self->state;
    if (is_request && st.armed && !st.stalled) {
      st.armed = false;
      st.stalled = true;
      self->delayed_send(self, st.stall, release_atom::value);
    }
    if (st.stalled)
      st.backlog.push_back(std::move(f));
    else
      f();
  };
  auto fail = [](auto rp) {
    return [=](caf::error& err) mutable { rp.deliver(std::move(err)); };
  };
  return {
    [=](scan_atom) {
      auto rp = self->make_response_promise<std::vector<unregistration>>();
      run(true, [=]() mutable {
        self->request(self->state.real, caf::infinite, scan_atom::value)
          .then(
            [=](std::vector<unregistration>& xs) mutable {
              rp.deliver(std::move(xs));
            },
            fail(rp));
      });
      return rp;
    },
    [=](conn_lost_atom, const caf::actor_addr& channel) {
      auto rp = self->make_response_promise<std::vector<unregistration>>();
      run(true, [=]() mutable {
        self
          ->request(self->state.real, caf::infinite, conn_lost_atom::value,
                    channel)
          .then(
            [=](std::vector<unregistration>& xs) mutable {
              rp.deliver(std::move(xs));
            },
            fail(rp));
      });
      return rp;
    },
    [=](const unregister_broker_request& req) {
      auto rp = self->make_response_promise<unregistration>();
      run(true, [=]() mutable {
        self->request(self->state.real, caf::infinite, req)
          .then([=](unregistration& x) mutable { rp.deliver(std::move(x)); },
                fail(rp));
      });
      return rp;
    },
    [=](unreport_atom) {
      run(false, [=] { self->send(self->state.real, unreport_atom::value); });
    },
    [=](stall_atom) { self->state.armed = true; },
    [=](dump_atom) {
      return self->delegate(self->state.real, dump_atom::value);
    },
    [=](release_atom) {
      auto& st = self->state;
      st.stalled = false;
      auto backlog = std::move(st.backlog);
      st.backlog.clear();
      for (auto& f : backlog)
        f();
    },
  };
}

} // namespace rmq::test
