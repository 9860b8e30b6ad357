// The warm actor: under sync flush, writes zeros into the current
// commit-log segment ahead of the writer and syncs them, so the writer's
// own fdatasyncs find written blocks instead of unwritten extents (whose
// first write makes the sync also commit the journal); under async flush,
// faults the mapping in ahead of the writer, so its appends take no page
// fault (docs/storage.md, "Warming"). Runs detached: it blocks on pwrite,
// fdatasync and page faults.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct warm_state {
  std::shared_ptr<storage::message_store> store;
  int64_t requests = 0;
  int64_t steps = 0;
  int64_t failures = 0;
  std::string last_error;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

warm_service_actor::behavior_type
warm_service(warm_service_actor::stateful_pointer<warm_state> self,
             std::shared_ptr<storage::message_store> store);

} // namespace rmq
