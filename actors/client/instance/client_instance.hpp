// One client instance per process and NameServer list (RocketMQ
// MQClientInstance): the peer directory, the route cache, the heartbeat
// sender and the latency-fault table, shared by every producer and
// consumer of the process. It can live in any actor system, a test's
// deterministic one included.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"
#include "caf/timespan.hpp"

#include "messages/client/client.hpp"
#include "messages/client/client_reply.hpp"
#include "messages/client/consumer.hpp"
#include "runtime/client/latency_fault_table.hpp"

namespace rmq {

struct client_config {
  /// NameServer addresses, "host:port;host:port" (RocketMQ namesrvAddr).
  std::string namesrv;
  /// RocketMQ instanceName; "DEFAULT" becomes pid#nanotime in the id.
  std::string instance_name = "DEFAULT";
  /// The IP in the client id; empty: this host's first external IPv4,
  /// else its last internal one, else 127.0.0.1 (RocketMQ's choice,
  /// runtime/client/client_id.hpp).
  std::string client_ip;
  /// RocketMQ pollNameServerInterval.
  caf::timespan poll_namesrv_interval = std::chrono::seconds{30};
  /// RocketMQ heartbeatBrokerInterval.
  caf::timespan heartbeat_interval = std::chrono::seconds{30};
  /// RocketMQ rocketmq.client.rebalance.waitInterval: the rebalance
  /// service's round (consumers).
  caf::timespan rebalance_interval = std::chrono::seconds{20};
  /// Bound of one connect to a broker or NameServer.
  caf::timespan connect_timeout = std::chrono::seconds{3};
  /// Bound of one request to a NameServer or of a heartbeat.
  caf::timespan request_timeout = std::chrono::seconds{3};
  /// RocketMQ sendLatencyFaultEnable (off in RocketMQ, on here: see
  /// docs/client.md).
  bool latency_fault_enable = true;
  fault_policy faults;
  /// Tests: use this directory instead of one that connects over the
  /// network.
  std::optional<peer_directory_actor> directory;
};

/// The handles of one client instance.
struct client_instance {
  std::string client_id;
  client_config config;
  peer_directory_actor directory;
  route_cache_actor routes;
  client_heartbeat_service_actor heartbeats;
  latency_fault_service_actor faults;
  /// Decides which queues each consumer of the instance owns.
  rebalance_service_actor rebalance;
  /// The requests of the instance's producers that wait for a reply.
  request_holder_actor requests;
};

/// Returns the instance of `sys` for `cfg.namesrv`, spawning it on first
/// use; later calls with the same NameServer list (in any order) share it
/// while someone holds it (the first caller's config wins).
/// invalid_parameter for an empty or malformed NameServer list.
caf::expected<std::shared_ptr<client_instance>>
client_instance_for(caf::actor_system& sys, const client_config& cfg);

/// Spawns a new, unshared instance (tests, and client_instance_for). The
/// last copy of the pointer stops its actors (not `cfg.directory`, which
/// belongs to the caller): release it before the actor system ends.
caf::expected<std::shared_ptr<client_instance>>
spawn_client_instance(caf::actor_system& sys, const client_config& cfg);

/// Stops the instance's actors (the shared registry forgets it).
void stop_client_instance(caf::actor_system& sys,
                          const std::shared_ptr<client_instance>& inst);

} // namespace rmq
