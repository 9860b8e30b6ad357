// The slave's side of replication (docs/replication.md, "Copying"): asks
// the master for its log from the slave's own write offset, appends what
// comes through the slave's commit-log writer (every record checked), and
// asks again from the new end; an empty answer (nothing new within the
// wait) is followed by the next ask at once, a failure (master away,
// refused) by a retry after `retry`, logged once per kind of failure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/replication.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/rate_meter.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct ha_client_options {
  /// The master to ask; none until `(connect_atom, addr)` names its
  /// broker, which the client then connects to.
  replica_source_actor master;
  commit_log_writer_actor writer;
  /// Told the master's broker once connected, and a null one once lost
  /// (the slave's metadata follows the same master); may be null.
  slave_sync_actor sync;
  std::shared_ptr<storage::message_store> store;
  std::string broker_name;
  int64_t broker_id = 1;
  /// This slave's broker address (shown in its master's haStatus).
  std::string broker_addr;
  /// For haStatus' last read and write times.
  rmq::wall_clock wall_clock;
  int32_t max_bytes = 1 << 20;
  /// How long the master may hold an ask with nothing new.
  int32_t wait_ms = 1'000;
  caf::timespan retry = std::chrono::seconds{1};
  /// Beyond the wait: the master or the writer did not answer.
  caf::timespan timeout = std::chrono::seconds{10};
  /// Bound of one connect to the master's broker.
  caf::timespan connect_timeout = std::chrono::seconds{3};
};

struct ha_client_state {
  ha_client_options opts;
  /// The master's broker address, once named.
  std::string master_addr;
  /// An ask or an append is on its way: a retry tick waits for it.
  bool busy = false;
  /// The ask part of `busy`; `generation` tells a lost master's late
  /// answer from the current one's.
  bool asking = false;
  int64_t generation = 0;
  bool connecting = false;
  /// This master's terms were compared with the slave's (each new
  /// connection compares again before copying), and where that left the
  /// slave's log.
  bool reconciled = false;
  int64_t consistent_from = -1;
  /// Comparisons that refused to copy (no shared history).
  int64_t refusals = 0;
  int64_t master_end = 0;
  int64_t chunks = 0;
  int64_t bytes = 0;
  /// Wall ms of the master's last answer and of the last append; bytes
  /// appended per second (haStatus).
  int64_t last_read_ms = 0;
  int64_t last_write_ms = 0;
  rate_meter appended;
  const caf::actor_clock* clock = nullptr;
  int64_t failures = 0;
  std::string last_error;

  nlohmann::json dump_fields() const;

  static const char* name;
};

ha_client_actor::behavior_type
ha_client(ha_client_actor::stateful_pointer<ha_client_state> self,
          ha_client_options opts);

} // namespace rmq
