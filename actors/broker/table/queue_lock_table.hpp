// The broker's queue lock table (RocketMQ RebalanceLockManager): which
// client of a consumer group holds which queue, for orderly consumption.
// A lock not renewed for `max_live_time` (rebalanceLockMaxLiveTime, 60 s)
// has expired and may be taken by another client. Memory only, as in
// RocketMQ: after a broker restart clients lock again within 20 s.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/broker/client_manager.hpp"

namespace rmq {

/// RocketMQ rebalanceLockMaxLiveTime (-Drocketmq.broker.rebalance.lockMaxLiveTime).
constexpr caf::timespan default_rebalance_lock_max_live_time
  = std::chrono::seconds{60};

/// State and logic of the table; times come from the actor clock.
struct queue_lock_table_state {
  using time_point = caf::actor_clock::time_point;

  struct lock_entry {
    std::string client_id;
    time_point last_update;
  };

  // -- member variables ------------------------------------------------------

  /// group -> queue -> holder.
  std::map<std::string, std::map<client_queue, lock_entry>> locks;

  caf::timespan max_live_time = default_rebalance_lock_max_live_time;

  int64_t granted = 0; ///< Queues handed to a new holder.
  int64_t refused = 0; ///< Queues asked for while another client held them.

  /// What `self->name()` returns; also the "actor" field of dumps.
  static const char* name;

  // -- logic -----------------------------------------------------------------

  /// Grants each queue that is free, expired or already the client's
  /// (renewing it); returns the queues the client holds of those asked.
  locked_queues lock(const lock_batch_request& x, time_point now);

  /// Releases the queues the client holds; others' locks stay.
  void unlock(const unlock_batch_request& x);

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  /// Set by the actor so that dumps can show each lock's age.
  time_point dump_now;
};

/// Spawns with `sys.spawn(queue_lock_table, max_live_time)`.
queue_lock_table_actor::behavior_type queue_lock_table(
  queue_lock_table_actor::stateful_pointer<queue_lock_table_state> self,
  caf::timespan max_live_time);

} // namespace rmq
