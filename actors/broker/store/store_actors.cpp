#include "actors/broker/store/store_actors.hpp"

#include "caf/exit_reason.hpp"
#include "caf/send.hpp"
#include "caf/spawn_options.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

namespace rmq {

namespace {

template <class F, class... Ts>
auto spawn_maybe_detached(caf::actor_system& sys, bool detached, F fn,
                          Ts&&... xs) {
  if (detached)
    return sys.spawn<caf::detached>(fn, std::forward<Ts>(xs)...);
  return sys.spawn(fn, std::forward<Ts>(xs)...);
}

} // namespace

store_actors
spawn_store_actors(caf::actor_system& sys,
                   std::shared_ptr<storage::message_store> store, bool detached,
                   caf::timespan checkpoint_interval, bool detach_writer) {
  store_actors result;
  result.flusher = spawn_maybe_detached(sys, detached, flush_service, store);
  // Detached, the queue service runs on the scheduler and its helper on a
  // thread of its own (docs/broker.md, "The queue service and its helper").
  if (detached) {
    result.queue_service_helper = sys.spawn<caf::detached>(
      queue_service, store, caf::timespan{0}, queue_service_actor{});
    result.queue_service = sys.spawn(queue_service, store, checkpoint_interval,
                                     result.queue_service_helper);
  } else {
    result.queue_service = sys.spawn(queue_service, store, checkpoint_interval,
                                     queue_service_actor{});
  }
  result.warmer = spawn_maybe_detached(sys, detached, warm_service, store);
  result.commit_log = spawn_maybe_detached(sys, detached && detach_writer,
                                           commit_log_writer, store,
                                           result.flusher, result.queue_service,
                                           result.warmer);
  // The writer's exit ends the others and, if it was a normal stop, closes
  // the store cleanly (it takes every part's lock, so late dispatches wait).
  auto flusher = result.flusher;
  auto queue_service = result.queue_service;
  auto warmer = result.warmer;
  result.commit_log->attach_functor(
    [store, flusher, queue_service, warmer](const caf::error& reason) {
      caf::anon_send_exit(flusher, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(queue_service, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(warmer, caf::exit_reason::user_shutdown);
      if (!reason || reason == caf::exit_reason::user_shutdown
          || reason == caf::exit_reason::normal)
        if (auto err = store->close())
          RMQ_ERROR("store", "close failed: " << describe(err));
    });
  return result;
}

} // namespace rmq
