// The flush actor: makes the commit log durable with fdatasync (RocketMQ
// GroupCommitService / FlushRealTimeService). The commit-log writer asks it
// to flush up to an offset; one fdatasync covers every append below it, so
// concurrent appends share one sync (group commit). Runs detached: fdatasync
// blocks for hundreds of microseconds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/replies_to.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/store/store.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct flush_state {
  std::shared_ptr<storage::message_store> store;
  int64_t syncs = 0;
  int64_t failures = 0;
  int64_t last_sync_us = 0;
  int64_t max_sync_us = 0;
  int64_t total_sync_us = 0;
  int64_t flushed_bytes = 0;
  std::string last_error;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

flush_service_actor::behavior_type
flush_service(flush_service_actor::stateful_pointer<flush_state> self,
              std::shared_ptr<storage::message_store> store);

} // namespace rmq
