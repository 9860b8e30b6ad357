// The commit-log writer: the single writer of the message store (RocketMQ
// CommitLog#asyncPutMessages). Takes batches, appends them, tells the
// queue service, and acknowledges under the flush mode: async at once, sync
// only after an fdatasync that covers the batch (group commit through the
// flush service). Refuses sends with system_busy above the backlog
// watermark. The broker runs it on the shared scheduler: an append copies
// into mapped memory; the blocking work (fdatasync, warming) is the flush
// and warm services' (actors/broker/store/store_actors.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/replies_to.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/broker/store/flush_service.hpp"
#include "actors/broker/store/queue_service.hpp"
#include "actors/common/network_actor.hpp"
#include "messages/common/common.hpp"
#include "messages/store/store.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct commit_log_state {
  using promise = caf::typed_response_promise<std::vector<put_result>>;

  /// A batch waiting for the fdatasync that covers it (sync flush) and,
  /// under SYNC_MASTER, for a slave to have it.
  struct waiting {
    int64_t end; // write offset after the batch
    std::vector<put_result> results;
    promise rp;
    size_t bytes;
    /// Answered with flush_disk_timeout or flush_slave_timeout from then
    /// on.
    caf::actor_clock::time_point deadline;
    bool need_flush = true;
    bool need_replica = false;
  };

  std::shared_ptr<storage::message_store> store;
  flush_service_actor flusher;
  queue_service_actor queue_service;
  warm_service_actor warmer; // null: no warming
  /// The master's replication service, told when the log grows while it
  /// holds an ask (message_store::claim_replica_note; docs/replication.md).
  ha_service_actor ha;
  int64_t replica_chunks = 0;
  /// How far the furthest slave has the log, and when a slave last said
  /// so (SYNC_MASTER); -1: no slave yet.
  int64_t replica_acked = -1;
  caf::actor_clock::time_point replica_seen;
  int64_t slave_timeouts = 0;    // batches answered flush_slave_timeout
  int64_t slave_unavailable = 0; // batches answered slave_not_available
  std::deque<waiting> waiting_acks;
  bool flush_in_flight = false;
  bool busy = false; // above the high watermark, until below the low one
  caf::actor_clock::time_point last_flush;
  int64_t ticks = 0;
  bool stopped = false;

  // Statistics for the dump.
  int64_t batches = 0;
  int64_t messages = 0;
  int64_t duplicates = 0;
  int64_t rejected = 0;     // per-message errors (size, disk full, ...)
  int64_t refused_busy = 0; // whole batches refused by back-pressure
  int64_t flush_requests = 0;
  int64_t failed_batches = 0;
  int64_t flush_timeouts = 0; // batches answered with flush_disk_timeout
  int64_t deleted_segments = 0;
  /// Batches refused because the disk is above the warning level.
  int64_t refused_disk_full = 0;
  /// 0: the disk is fine; 1: above the clean-forcibly ratio; 2: above the
  /// warning level (writes refused). Each change is logged at WARN.
  int disk_level = 0;

  /// Bytes appended but not yet durable or not yet dispatched.
  int64_t backlog() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

commit_log_writer_actor::behavior_type commit_log_writer(
  network_pointer<commit_log_writer_actor, commit_log_state> self,
  std::shared_ptr<storage::message_store> store, flush_service_actor flusher,
  queue_service_actor queue_service, warm_service_actor warmer);

} // namespace rmq
