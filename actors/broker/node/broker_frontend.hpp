// The broker's front actor (messages/broker/broker.hpp): what rmq-node publishes.
// It routes each request to the actor that owns it: the data path
// (sends, pulls, send-backs, heartbeats, locks) is delegated to the
// attached processors, so their answer goes straight back to the client;
// requests for the detached tables and store actors are relayed
// (actors/common/relay.hpp), so no client ever holds a handle to an actor
// with its own thread. Its dump is the whole node's.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/broker/store/store_actors.hpp"
#include "actors/common/network_actor.hpp"
#include "actors/common/supervisor.hpp"
#include "messages/broker/broker.hpp"
#include "messages/broker/namesrv_registrar.hpp"
#include "messages/broker/replication.hpp"
#include "messages/broker/reply.hpp"
#include "messages/broker/transaction_service.hpp"

namespace rmq {

/// Every actor the front talks to or dumps.
struct broker_frontend_peers {
  store_actors store;
  topic_config_table_actor topics;
  consumer_offset_table_actor offsets;
  subscription_group_table_actor groups;
  queue_lock_table_actor locks;
  client_manager_actor clients;
  send_processor_actor send;
  send_back_processor_actor send_back;
  pull_hold_service_actor hold;
  pull_processor_actor pull;
  broker_admin_service_actor admin;
  /// Asked for the current registrar at each dump (it may be respawned);
  /// set once by `(put_atom, supervisor_actor)`, which the node sends
  /// right after spawning the supervisor (it watches the front, so it
  /// comes later).
  supervisor_actor supervisor;
  /// Extra parts for the dump (services added later).
  std::vector<dumpable_actor> more;
  /// SEND_REPLY_MESSAGE (docs/request-reply.md).
  reply_processor_actor reply;
  /// END_TRANSACTION (attached: delegated).
  end_transaction_processor_actor end_transaction;
  /// A master's replication service; none on a slave.
  ha_service_actor ha;
  /// A master's metadata service for its slaves; none on a slave.
  metadata_service_actor metadata;
  /// A slave's replication client; none on a master.
  ha_client_actor ha_client;
  /// Carries out a checked role change (rmq-node restarts the node in its
  /// new role); none: the node refuses role changes.
  std::function<caf::error(const role_change_request&)> on_role_change;
};

struct broker_frontend_state {
  broker_frontend_peers peers;
  /// The broker's address as registered (host:port).
  std::string broker_addr;
  std::string broker_name;
  std::string cluster_name;
  int64_t broker_id = 0;
  int64_t sends = 0;
  int64_t pulls = 0;
  int64_t admin_requests = 0;

  nlohmann::json dump_fields() const;

  static const char* name;
};

/// The front's own interface: the clients' one plus the late supervisor.
using broker_frontend_actor
  = broker_actor::extend<caf::reacts_to<caf::put_atom, supervisor_actor>>;

broker_frontend_actor::behavior_type broker_frontend(
  network_pointer<broker_frontend_actor, broker_frontend_state> self,
  broker_frontend_peers peers, std::string broker_addr, std::string broker_name,
  std::string cluster_name, int64_t broker_id);

} // namespace rmq
