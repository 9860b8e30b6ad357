// Messages between the NameServer's own actors (never on the network): the
// pieces of RocketMQ's RouteInfoManager operations that each table applies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"

#include "messages/namesrv/namesrv.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

/// Asks the liveness table for brokers whose heartbeat timed out.
using scan_atom = caf::atom_constant<caf::atom("scan")>;

/// Tells the liveness table that a broker's connection is gone.
using conn_lost_atom = caf::atom_constant<caf::atom("conn_lost")>;

/// Tells the liveness table that a list it reported (scan, conn_lost) never
/// reached its asker (timeout): those entries may be reported again.
using unreport_atom = caf::atom_constant<caf::atom("unreport")>;

/// An unregistration waiting in the batcher. `token` is the liveness entry's
/// sequence number when it was queued: if the broker registered or heart-beat
/// after that, the entry's number is higher and the unregistration is stale
/// (the race of RocketMQ issue #11043).
struct unregistration {
  unregister_broker_request request;
  uint64_t token = 0;
  std::string reason; // "expired", "connection lost", "request"
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, unregistration& x) {
  return f(caf::meta::type_name("rmq.unregistration"), x.request, x.token,
           x.reason);
}

/// What the liveness table knows of one (cluster, address).
struct live_summary {
  std::string broker_addr;
  bool exists = false;
  data_version version;
  std::string ha_server_addr;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, live_summary& x) {
  return f(caf::meta::type_name("rmq.live_summary"), x.broker_addr, x.exists,
           x.version, x.ha_server_addr);
}

/// The topics a registering master (or prime slave) announces.
struct broker_topics_update {
  std::string broker_name;
  std::vector<topic_config> topics;
  /// Overwrite existing queue data (first registration or new version).
  bool force = false;
  /// Remove this broker from topics it no longer announces.
  bool delete_missing = false;
  /// Strip the write bit (a prime slave acting as master).
  bool strip_write = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_topics_update& x) {
  return f(caf::meta::type_name("rmq.broker_topics_update"), x.broker_name,
           x.topics, x.force, x.delete_missing, x.strip_write);
}

/// What unregistering addresses did to one broker group.
struct broker_removal {
  std::string cluster;
  std::string broker_name;
  /// The group has no address left and is gone.
  bool removed = false;
  /// The group is left without a master while acting master is enabled:
  /// its queues lose the write bit.
  bool strip_write = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_removal& x) {
  return f(caf::meta::type_name("rmq.broker_removal"), x.cluster, x.broker_name,
           x.removed, x.strip_write);
}

} // namespace rmq
