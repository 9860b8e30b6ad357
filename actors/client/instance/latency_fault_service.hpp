// The client instance's latency-fault table (RocketMQ 5
// LatencyFaultToleranceImpl): every send loop reports each attempt's
// latency here, and gets the whole table pushed whenever a broker's
// availability or reachability changes, so it can pick queues from its own
// copy without asking. Times are actor-clock nanoseconds.
#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/client/client.hpp"
#include "runtime/client/latency_fault_table.hpp"

namespace rmq {

struct latency_fault_state {
  // -- member variables ------------------------------------------------------

  latency_fault_table table;

  /// Told the table on every change (monitored, dropped when down).
  std::vector<fault_listener_actor> listeners;

  int64_t reports = 0; ///< Outcomes recorded.
  int64_t pushes = 0;  ///< Changes pushed to the listeners.

  /// What `self->name()` returns; also the "actor" field of dumps.
  static const char* name;

  /// Set by the actor before a dump, so it can show each broker's wait.
  int64_t dump_now_ns = 0;

  // -- logic -----------------------------------------------------------------

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;
};

/// Spawns with `sys.spawn(latency_fault_service, policy)`. A listener that
/// subscribes gets only later changes: it asks `fault_atom` after
/// subscribing (one mailbox, so no change falls in between).
latency_fault_service_actor::behavior_type latency_fault_service(
  latency_fault_service_actor::stateful_pointer<latency_fault_state> self,
  fault_policy policy);

} // namespace rmq
