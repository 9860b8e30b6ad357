// The broker's NameServer registrar (RocketMQ BrokerController
// registerBrokerAll / sendHeartbeat, BrokerOuterAPI): keeps one broker
// registered with every NameServer of a list.
//
// At start it connects to every NameServer and registers once connected;
// then it registers with all of them every `register_interval` and
// heart-beats them every `heartbeat_interval`. A new topic set registers at
// once. A NameServer that answers a heartbeat or registration with
// `broker_not_found` (it restarted, or dropped us) is registered with at
// once. Connects are asynchronous and bounded, one at a time per
// NameServer, so a dead one never delays the others; a lost one is
// connected again at the next heartbeat or round. `delete_atom` unregisters
// from every NameServer and then quits.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/broker/namesrv_registrar.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/net/host_port.hpp"

namespace rmq {

/// What the registrar registers and how often (RocketMQ BrokerConfig
/// names and defaults; see docs/broker.md "NameServer registrar").
struct namesrv_registrar_options {
  /// namesrvAddr, parsed (runtime/net/host_port.hpp).
  std::vector<host_port> namesrv_addrs;
  /// brokerClusterName.
  std::string cluster_name = "DefaultCluster";
  /// The address clients and NameServers know this broker by.
  std::string broker_addr;
  /// brokerName.
  std::string broker_name;
  /// brokerId: 0 = master, > 0 = slave.
  int64_t broker_id = master_id;
  /// Where slaves replicate from (getHAServerAddr).
  std::string ha_server_addr;
  /// Where RocketMQ's remoting clients reach this broker (empty: nowhere).
  std::string remoting_addr;
  /// zoneName (may be empty).
  std::string zone_name;
  /// enableSlaveActingMaster.
  bool enable_acting_master = false;
  /// The data version's state version (RocketMQ's stateVersion): the
  /// store's last term (docs/replication.md, "Failover"). A NameServer
  /// refuses a broker id held by another live address with a newer one,
  /// so a returning old master does not take back its group.
  int64_t state_version = 0;
  /// Silence after which NameServers drop this broker, in ms; 0 = their
  /// default (RocketMQ sends brokerNotActiveTimeoutMillis only with acting
  /// master, else nothing).
  int64_t heartbeat_timeout_ms = 0;
  /// The topics and data version registered until a new set arrives.
  topic_config_set topics;
  /// registerNameServerPeriod, bounded to [10 s, 60 s] as in RocketMQ.
  caf::timespan register_interval = std::chrono::seconds{30};
  /// brokerHeartbeatInterval; zero sends no heartbeats.
  caf::timespan heartbeat_interval = std::chrono::seconds{1};
  /// registerBrokerTimeoutMills.
  caf::timespan register_timeout = std::chrono::seconds{24};
  /// sendHeartbeatTimeoutMillis.
  caf::timespan heartbeat_request_timeout = std::chrono::seconds{1};
  /// connectTimeoutMillis (NettyClientConfig).
  caf::timespan connect_timeout = std::chrono::seconds{3};
  /// Bound of each UNREGISTER_BROKER at a graceful stop (BrokerOuterAPI
  /// uses 3 s).
  caf::timespan unregister_timeout = std::chrono::seconds{3};
  /// Answers `(connect_atom, host, port)` with `(node_id, strong_actor_ptr,
  /// std::set<std::string>)` or an error, like the middleman. Null: the
  /// TLS-aware connector of runtime/net/connect.hpp. Tests pass an actor that
  /// hands out in-process NameServers.
  caf::actor connector;
  /// Called on the registrar's thread with a line for each notable event
  /// ("registered with ADDR", "lost ADDR (...)", "cannot connect to ADDR:
  /// ...", "unregistered from ADDR"); may be empty. The events are logged
  /// as well.
  std::function<void(const std::string&)> on_event;
  /// A slave's master as a NameServer names it in each answer (the
  /// master's broker address): the slave's replication client connects
  /// there, or again after it lost the master.
  std::function<void(const std::string&)> on_master;
  /// Registers nothing until `open_atom`: rmq-node publishes the broker's
  /// port after spawning it, and a NameServer must not hand clients an
  /// address nobody listens on yet.
  bool wait_for_open = false;
};

/// One NameServer as the registrar sees it.
struct namesrv_peer {
  host_port where;
  /// "host:port".
  std::string addr;
  /// Null while not connected.
  namesrv_actor hdl;
  bool connecting = false;
  /// Registrations sent and not yet answered.
  int32_t registering = 0;
  int64_t registrations = 0;
  int64_t heartbeats = 0;
  /// Failed connects, registrations and heartbeats.
  int64_t failures = 0;
  /// Failed connects since the last successful one.
  int64_t connect_failures = 0;
  /// Actor-clock time of the last successful registration in ms, -1 if none.
  int64_t last_registration_ms = -1;
  /// A registration answered broker_not_found was retried at once (reset
  /// by a successful one).
  bool retried_not_found = false;
  /// "ok" or the error of the last registration; empty before the first.
  std::string last_result;
  std::string last_error;
  /// The data version the NameServer last accepted from us.
  data_version registered_version;
  /// From the last registration result (what a slave needs).
  std::string master_addr;
  std::string ha_server_addr;
};

struct namesrv_registrar_state {
  namesrv_registrar_options opts;
  std::vector<namesrv_peer> peers;
  /// The registration sent to every NameServer.
  register_broker_request registration;
  /// Registering has begun (at spawn, or at `open_atom` with
  /// `wait_for_open`).
  bool open = false;
  bool stopping = false;
  /// A slave's: a NameServer has named its master. Until then each
  /// heartbeat round registers again rather than heart-beats, so that a
  /// slave started with its master finds it within a second, not at the
  /// next round (RocketMQ waits for the next round).
  bool master_known = false;
  /// Unregistrations in flight during a graceful stop.
  size_t unregistering = 0;
  std::vector<caf::typed_response_promise<caf::ok_atom>> stop_waiters;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

namesrv_registrar_actor::behavior_type namesrv_registrar(
  namesrv_registrar_actor::stateful_pointer<namesrv_registrar_state> self,
  namesrv_registrar_options opts);

} // namespace rmq
