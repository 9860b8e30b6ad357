// Queues unregistrations (UNREGISTER_BROKER requests, expired heartbeats,
// lost connections) and has the route writer apply everything queued as one
// batch (RocketMQ BatchUnregistrationService). While a batch is in flight,
// new arrivals wait and go out together with the next one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/route_writer.hpp"

namespace rmq {

using unregistration_batcher_actor = dumpable_actor::extend<
  // From a client request: refused with queue_full past the capacity.
  caf::replies_to<unregistration>::with<caf::ok_atom>,
  // From the node itself (expiry, lost connection): always queued, since
  // the number of brokers bounds it.
  caf::reacts_to<std::vector<unregistration>>, caf::reacts_to<caf::flush_atom>>;

struct unregistration_batcher_state {
  route_writer_actor writer;
  size_t capacity = 3000;
  std::deque<unregistration> queue;
  bool flush_scheduled = false;
  bool in_flight = false;
  uint64_t batches = 0;
  size_t last_batch_size = 0;
  size_t largest_batch_size = 0;
  uint64_t applied = 0;
  uint64_t refused = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

unregistration_batcher_actor::behavior_type unregistration_batcher(
  unregistration_batcher_actor::stateful_pointer<unregistration_batcher_state>
    self,
  route_writer_actor writer, size_t capacity);

} // namespace rmq
