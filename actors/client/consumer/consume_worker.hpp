// A push consumer's consume worker (one thread of RocketMQ's
// consumeExecutor): runs the user's listener on one job at a time, a
// slice of at most consume_batch_max messages per call (a job may hold
// several slices, so that a pull costs few hand-offs). The
// consumer spawns `consume_threads` of them detached (a listener may
// block) and hands a batch only to an idle one. A listener that throws
// answers the retry status (reconsume_later / suspend), so one bad
// message never ends the worker.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/client/consumer.hpp"

namespace rmq {

/// The listener as a worker sees it: a batch in, a consume_status or
/// orderly_status value out.
using batch_listener
  = std::function<uint8_t(const std::vector<received_message>&)>;

struct consume_worker_state {
  batch_listener listener;
  /// consume_batch_max: the most messages per listener call.
  size_t slice = 1;
  /// Listener calls.
  int64_t batches = 0;
  int64_t messages = 0;
  int64_t retries = 0;
  int64_t thrown = 0;
  std::string last_error;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

consume_worker_actor::behavior_type consume_worker(
  consume_worker_actor::stateful_pointer<consume_worker_state> self,
  batch_listener listener, size_t slice);

} // namespace rmq
