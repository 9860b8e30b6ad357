// Spawns the message store's three actors around one opened store. Real use
// (rmq-bench store/store-writer today, the broker node later) runs them
// detached (each on its own thread: they block on file I/O and fdatasync,
// which must not stall CAF's shared scheduler); tests on the deterministic
// coordinator spawn them attached.
#pragma once

#include <chrono>
#include <memory>

#include "caf/actor_system.hpp"
#include "caf/timespan.hpp"

#include "actors/broker/commit_log_writer.hpp"
#include "actors/broker/dispatch_service.hpp"
#include "actors/broker/flush_service.hpp"
#include "actors/broker/warm_service.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct store_actors {
  commit_log_actor commit_log;
  flush_actor flusher;
  dispatcher_actor dispatcher;
  warm_actor warmer;
};

/// Spawns the flush actor, the dispatcher (checkpoint every
/// `checkpoint_interval`, zero: never), the warm actor and the commit-log
/// writer. The store
/// is closed cleanly when the writer exits normally.
store_actors
spawn_store_actors(caf::actor_system& sys,
                   std::shared_ptr<storage::message_store> store, bool detached,
                   caf::timespan checkpoint_interval = std::chrono::seconds{1});

} // namespace rmq
