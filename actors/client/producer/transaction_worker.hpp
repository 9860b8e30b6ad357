// A transaction producer's worker (one thread of RocketMQ's checkExecutor,
// or the caller's thread that runs executeLocalTransaction): runs the
// user's transaction listener on one message at a time. The producer
// spawns its workers detached (a listener may block). A listener that
// throws answers unknown with the exception's text, so one bad
// transaction never ends the worker.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/client/producer/transaction_listener.hpp"
#include "messages/client/transaction_producer.hpp"

namespace rmq {

struct transaction_worker_state {
  std::shared_ptr<transaction_listener> listener;
  int64_t executed = 0;
  int64_t checked = 0;
  int64_t thrown = 0;
  std::string last_error;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

transaction_worker_actor::behavior_type transaction_worker(
  transaction_worker_actor::stateful_pointer<transaction_worker_state> self,
  std::shared_ptr<transaction_listener> listener);

} // namespace rmq
