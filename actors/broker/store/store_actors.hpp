// Spawns the message store's actors around one opened store. Real use runs
// the flush service, the warm service and the queue service's helper
// detached (each on its own thread: they block on fdatasync, file creation
// and checkpoints, which must not stall CAF's shared scheduler); the queue
// service itself runs on the scheduler and hands what blocks to its helper. The commit-log writer only
// copies records into mapped memory, so the broker runs it on the
// scheduler: a send then crosses no thread inside the broker, which made
// 1-in-flight sends 56 % -> 90 % of the CAF echo (docs/benchmarks.md,
// "Writer on the scheduler"). It still creates a segment file when it
// rolls (one per segment size written) and deletes expired segments on its
// tick. Tests on the deterministic coordinator spawn every actor attached.
#pragma once

#include <chrono>
#include <memory>

#include "caf/actor_system.hpp"
#include "caf/timespan.hpp"

#include "actors/broker/store/commit_log_writer.hpp"
#include "actors/broker/store/flush_service.hpp"
#include "actors/broker/store/queue_service.hpp"
#include "actors/broker/store/warm_service.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct store_actors {
  commit_log_writer_actor commit_log;
  flush_service_actor flusher;
  queue_service_actor queue_service;
  /// The queue service's helper (linked to it), when detached; else none.
  queue_service_actor queue_service_helper;
  warm_service_actor warmer;
};

/// Spawns the flush actor, the queue service (checkpoint every
/// `checkpoint_interval`, zero: never), the warm actor and the commit-log
/// writer (detached too when both `detached` and `detach_writer`). With
/// `detached`, the queue service stays on the scheduler and gets a detached
/// helper for what blocks. The store is closed cleanly when the writer
/// exits normally.
store_actors
spawn_store_actors(caf::actor_system& sys,
                   std::shared_ptr<storage::message_store> store, bool detached,
                   caf::timespan checkpoint_interval = std::chrono::seconds{1},
                   bool detach_writer = true);

} // namespace rmq
