// The master's side of replication (docs/replication.md, "Copying"):
// answers each slave's ask for the log from its own end with the stored
// bytes from there, and holds an ask while nothing is new until the log
// grows (its writer says so) or the ask's wait passes. The offset a slave
// asks from is its acknowledgement: the service keeps each slave's, which
// is its lag and, later, what SYNC_MASTER waits for.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/broker/replication.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/rate_meter.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct ha_service_options {
  std::shared_ptr<storage::message_store> store;
  /// The group: only its slaves are answered.
  std::string broker_name;
  /// The largest chunk, whatever a slave asks (RocketMQ sends 32 KiB
  /// batches; a larger chunk costs one round trip per MiB instead).
  int32_t max_chunk = 1 << 20;
  /// The longest a held ask waits, whatever a slave asks.
  int32_t max_wait_ms = 5'000;
  /// Told how far the furthest slave has the log, at every ask, under
  /// SYNC_MASTER (its batches wait for it).
  commit_log_writer_actor writer;
};

struct ha_service_state {
  using time_point = caf::actor_clock::time_point;

  struct slave {
    /// Where it asked from last: what it has.
    int64_t acked = 0;
    int64_t asks = 0;
    int64_t chunks = 0;
    int64_t bytes = 0;
    time_point last_ask;
    std::string addr;
    /// Where its copying from this master began (TransferFromWhere).
    int64_t from_where = -1;
    /// Bytes sent, for haStatus' transfer speed.
    rate_meter sent;
  };

  struct held {
    replica_chunk_request req;
    caf::typed_response_promise<replica_chunk> rp;
    time_point deadline;
  };

  ha_service_options opts;
  std::map<int64_t, slave> slaves;
  std::vector<held> waiting;
  int64_t refused = 0;
  /// For the dump: how long ago each slave asked, and its speed.
  const caf::actor_clock* clock = nullptr;

  nlohmann::json dump_fields() const;

  static const char* name;
};

ha_service_actor::behavior_type
ha_service(ha_service_actor::stateful_pointer<ha_service_state> self,
           ha_service_options opts);

} // namespace rmq
