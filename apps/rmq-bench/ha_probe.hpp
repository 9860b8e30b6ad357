// What the replication bench reads off a broker's node dump (the broker
// front answers a dump request with every actor's dump): the store's write
// and dispatch offsets, a master's ha_service (its log end, its slave's
// acknowledged offset and lag) and a slave's ha_client; and a wait on them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "messages/broker/broker.hpp"

namespace rmq::bench {

/// One node dump's replication figures; -1 where the part or field is
/// missing.
struct ha_state {
  /// The dump answered and parsed.
  bool ok = false;
  /// commit_log_writer: the log's end and how far dispatch got.
  int64_t write_offset = -1;
  int64_t dispatched_offset = -1;
  /// ha_service (a master): its log end when it dumped, the slaves in
  /// sync, and slave 1's acknowledged offset and lag in bytes.
  int64_t master_offset = -1;
  int64_t in_sync_slaves = -1;
  int64_t acked_offset = -1;
  int64_t lag_bytes = -1;
  /// ha_client (a slave): its log end.
  int64_t slave_offset = -1;
};

/// Reads `broker`'s node dump; `ok` is false when it did not answer within
/// `timeout`.
ha_state
read_ha_state(caf::scoped_actor& self, const broker_actor& broker,
              std::chrono::milliseconds timeout = std::chrono::seconds{10});

/// Reads `broker`'s dump every `interval` until `done` holds; returns the
/// seconds waited, or -1 (printed with `what`) after `limit`.
double wait_for_state(caf::actor_system& sys, const broker_actor& broker,
                      const std::function<bool(const ha_state&)>& done,
                      std::chrono::milliseconds interval,
                      std::chrono::seconds limit, const std::string& what);

} // namespace rmq::bench
