// Master/slave replication inside a broker group (docs/replication.md):
// a slave asks its master for the commit log from where its own ends, and
// the master answers with the stored bytes from there (RocketMQ's HA: the
// slave reports its max offset, the master pushes from it). The offset a
// slave asks from is also its acknowledgement of everything below it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/client_manager.hpp"
#include "messages/broker/pull.hpp"
#include "messages/broker/schedule.hpp"
#include "messages/broker/timer.hpp"
#include "messages/broker/topics.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"

namespace rmq {

/// A master term: its epoch and the log offset where it began
/// (docs/replication.md, "Epochs").
struct replica_term {
  int32_t epoch = 0;
  int64_t start_offset = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_term& x) {
  return f(caf::meta::type_name("rmq.replica_term"), x.epoch, x.start_offset);
}

RMQ_DECLARE_MESSAGE(replica_term);

/// A slave's ask for its master's log from `from`, its own write offset.
struct replica_chunk_request {
  /// The slave's group (brokerName): a slave of another group is refused.
  std::string broker_name;
  /// brokerId, 1 and up.
  int64_t broker_id = 0;
  int64_t from = 0;
  /// At most this many bytes (at least one record).
  int32_t max_bytes = 0;
  /// With nothing new, the master holds the ask this long (a long poll).
  int32_t wait_ms = 0;
  /// The slave's broker address, for the master's haStatus.
  std::string slave_addr;
  /// false: the slave has not compared its terms with this master's yet
  /// (a new connection): the master answers at once with no bytes, its
  /// terms and its end, and does not take `from` as an acknowledgement.
  bool reconciled = false;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, replica_chunk_request& x) {
  return f(caf::meta::type_name("rmq.replica_chunk_request"), x.broker_name,
           x.broker_id, x.from, x.max_bytes, x.wait_ms, x.slave_addr,
           x.reconciled);
}

RMQ_DECLARE_MESSAGE(replica_chunk_request);

/// The master's log from `from` as stored (message_store::read_log);
/// empty when nothing came within the wait.
struct replica_chunk {
  int64_t from = 0;
  std::string bytes;
  /// The master's write offset when it answered: the slave's lag.
  int64_t master_end = 0;
  /// The master's terms, oldest first.
  std::vector<replica_term> terms;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_chunk& x) {
  return f(caf::meta::type_name("rmq.replica_chunk"), x.from, x.bytes,
           x.master_end, x.terms);
}

RMQ_DECLARE_MESSAGE(replica_chunk);

/// A slave's ask for its master's metadata (RocketMQ SlaveSynchronize):
/// the versions it has, so that an unchanged table is not sent again.
struct metadata_request {
  std::string broker_name;
  int64_t broker_id = 0;
  data_version topics;
  data_version groups;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metadata_request& x) {
  return f(caf::meta::type_name("rmq.metadata_request"), x.broker_name,
           x.broker_id, x.topics, x.groups);
}

RMQ_DECLARE_MESSAGE(metadata_request);

/// The master's metadata: its topics and subscription groups when their
/// version is not the slave's, every consumer offset, and where its delay
/// levels and timer wheel stand.
struct metadata_snapshot {
  bool has_topics = false;
  topic_config_set topics;
  bool has_groups = false;
  subscription_group_set groups;
  std::vector<consumer_offsets> offsets;
  schedule_progress schedule;
  timer_progress timer;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metadata_snapshot& x) {
  return f(caf::meta::type_name("rmq.metadata_snapshot"), x.has_topics,
           x.topics, x.has_groups, x.groups, x.offsets, x.schedule, x.timer);
}

RMQ_DECLARE_MESSAGE(metadata_snapshot);

/// rmq-admin promote / demote (docs/replication.md, "Failover"): the
/// broker restarts itself as `broker_id` (0: the master) with `role`
/// (ASYNC_MASTER, SYNC_MASTER or SLAVE), kept in its store across later
/// restarts. A promotion is refused while the slave still reaches a live
/// master, unless `force`.
struct role_change_request {
  int64_t broker_id = 0;
  std::string role;
  bool force = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, role_change_request& x) {
  return f(caf::meta::type_name("rmq.role_change_request"), x.broker_id, x.role,
           x.force);
}

RMQ_DECLARE_MESSAGE(role_change_request);

/// `(replicated_atom, offset)` from a master's replication service to its
/// commit-log writer: a slave has the log up to `offset` (the furthest of
/// its slaves), which SYNC_MASTER's batches wait for.
using replicated_atom = caf::atom_constant<caf::atom("replicatd")>;

/// `(replica_atom, chunk)` to a slave's commit-log writer appends a
/// master's chunk and takes its terms; answers the new write offset.
using replica_atom = caf::atom_constant<caf::atom("replica")>;

/// `(reconcile_atom, chunk)` to a slave's commit-log writer compares the
/// slave's terms with the master's (the chunk's terms and end), cuts what
/// the master never had, and answers the offset to copy from; refused
/// (nothing cut) when the logs cannot be one history.
using reconcile_atom = caf::atom_constant<caf::atom("reconcile")>;

/// The master's replication service: answers its slaves' asks, holding
/// them while nothing is new; `tick_atom` from its writer says the log
/// grew (and re-checks held asks past their wait).
using ha_service_actor = dumpable_actor::extend<
  caf::replies_to<replica_chunk_request>::with<replica_chunk>,
  caf::reacts_to<tick_atom>>;

/// What a slave asks: its master's replication service, or the master's
/// broker front, which passes the ask on.
using replica_source_actor = caf::typed_actor<
  caf::replies_to<replica_chunk_request>::with<replica_chunk>>;

/// What a slave asks for metadata: its master's metadata service, or the
/// master's broker front, which passes the ask on.
using metadata_source_actor = caf::typed_actor<
  caf::replies_to<metadata_request>::with<metadata_snapshot>>;

/// The master's metadata service: gathers its tables for a slave's ask.
using metadata_service_actor = dumpable_actor::extend<
  caf::replies_to<metadata_request>::with<metadata_snapshot>>;

/// A slave's metadata sync (RocketMQ SlaveSynchronize): asks its master
/// every interval once `(caf::put_atom, source)` names the master (a null
/// source: the master is gone), and hands each table its master's state.
using slave_sync_actor
  = dumpable_actor::extend<caf::reacts_to<caf::put_atom, metadata_source_actor>,
                           caf::reacts_to<tick_atom>>;

/// A slave's replication client: asks its master for the log from its
/// own end, again and again; `tick_atom` retries after a failure, and
/// `(connect_atom, "host:port")` names the master's broker (the
/// NameServers tell the slave's registrar).
using ha_client_actor
  = dumpable_actor::extend<caf::reacts_to<tick_atom>,
                           caf::reacts_to<caf::connect_atom, std::string>,
                           // The master's address while connected to it,
                           // else "".
                           caf::replies_to<caf::get_atom>::with<std::string>>;

} // namespace rmq
