// An event-based actor that runs on the network thread when a message
// reaches it from there. CAF 0.17 runs a scheduled actor on the shared
// scheduler: a request read off a connection wakes a scheduler thread,
// and its answer wakes the network thread again, two thread hand-offs
// per request. An actor whose resumable subtype is `io_actor` is run by
// the multiplexer itself (as CAF's own brokers are) when the message
// comes from the multiplexer's thread; from anywhere else (a timer, an
// actor on the scheduler) it still runs on the scheduler. It never runs
// on two threads at once: the mailbox schedules it once at a time.
// The broker's batch sends take this path (docs/broker.md, "Threads").
#pragma once

#include <atomic>
#include <utility>

#include "caf/execution_unit.hpp"
#include "caf/resumable.hpp"
#include "caf/stateful_actor.hpp"

namespace rmq {

template <class State, class Base>
class network_actor : public caf::stateful_actor<State, Base> {
public:
  using super = caf::stateful_actor<State, Base>;
  using super::super;

  caf::resumable::subtype_t subtype() const override {
    return on_network_.load(std::memory_order_relaxed)
             ? caf::resumable::io_actor
             : super::subtype();
  }

  /// Whether a message from the network thread is run there (the
  /// default) or handed to the scheduler. CAF asks when the actor goes
  /// from idle to scheduled, so an actor can choose by what it served
  /// last; either answer is safe.
  void run_on_network(bool x) {
    on_network_.store(x, std::memory_order_relaxed);
  }

private:
  std::atomic<bool> on_network_{true};
};

/// The self pointer of a function-based typed actor `Handle` with state
/// `State` that runs as a network_actor (CAF spawns the pointee type).
template <class Handle, class State>
using network_pointer = network_actor<State, typename Handle::base>*;

/// `self->delegate(dest, xs...)`, but an idle `dest` is scheduled on the
/// shared scheduler even when `self` runs on the network thread: there,
/// many small requests keep the network thread and a scheduler thread
/// busy side by side, which beats one thread doing both.
template <class Self, class Handle, class... Ts>
auto delegate_to_scheduler(Self* self, const Handle& dest, Ts&&... xs) {
  auto* ctx = self->context();
  // Enqueued without an execution unit, an actor goes to the scheduler.
  self->context(nullptr);
  auto result = self->delegate(dest, std::forward<Ts>(xs)...);
  self->context(ctx);
  return result;
}

} // namespace rmq
