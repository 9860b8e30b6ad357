// The client instance's heartbeat sender (RocketMQ MQClientInstance
// sendHeartbeatToAllBrokerWithLock, unregisterClient): tells the brokers
// which producer and consumer groups this client is in.
//
// Every heartbeat interval, and at once when a group is added, it asks the
// route cache for the brokers and sends one client_heartbeat to each:
// masters only while the client has no consumer, every address (slaves
// too) once it has one. Nothing is sent while it has no group. A group
// added by two producers of the process is unregistered when the last one
// leaves. It is the channel the brokers know the client by, so it gets
// their consumer_ids_changed and forwards it to its listeners, and their
// check_transaction_state, which it forwards to the transaction producers
// of the message's group.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"
#include "messages/client/client_reply.hpp"

namespace rmq {

struct client_heartbeat_config {
  /// `ip@instanceName` (runtime/client/client_id.hpp).
  std::string client_id;
  /// Where the brokers come from.
  route_cache_actor routes;
  /// Where the broker connections come from.
  peer_directory_actor directory;
  /// RocketMQ heartbeatBrokerInterval; zero: only the rounds a new group
  /// starts.
  caf::timespan interval = std::chrono::seconds{30};
  /// Bound of one connect (the directory's; this actor waits a little
  /// longer for its answer).
  caf::timespan connect_timeout = std::chrono::seconds{3};
  /// Bound of one heartbeat or unregistration (RocketMQ uses 3 s for
  /// both).
  caf::timespan request_timeout = std::chrono::seconds{3};
  /// Where pushed replies go (the client instance's request holder); none:
  /// they are dropped and logged.
  request_holder_actor requests;
};

/// One broker address as the sender sees it.
struct heartbeat_peer {
  std::string broker_name;
  int64_t heartbeats = 0;
  int64_t failures = 0;
  std::string last_error;
};

struct client_heartbeat_state {
  client_heartbeat_config cfg;
  /// Producer group -> how many producers of the process are in it.
  std::map<std::string, int32_t> producers;
  std::map<std::string, consumer_data> consumers;
  /// The consumer actor of each group (what registered it): asked for its
  /// dump when a broker asks for the group's running info.
  std::map<std::string, dumpable_actor> consumer_actors;
  std::vector<caf::actor> listeners;
  /// By broker address.
  std::map<std::string, heartbeat_peer> peers;
  int64_t rounds = 0;
  int64_t rounds_in_flight = 0;
  int64_t forwarded = 0;
  /// Transaction producers by group: they get the brokers' check-backs.
  std::map<std::string, std::vector<transaction_check_listener_actor>>
    transaction_producers;
  int64_t checks_forwarded = 0;
  /// Check-backs for a group with no transaction producer here.
  int64_t checks_dropped = 0;
  /// Pushed replies passed on to the request holder.
  int64_t forwarded_replies = 0;

  /// The heartbeat every broker gets now.
  client_heartbeat heartbeat() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// The addresses a heartbeat goes to: every master, or with consumers
/// every address (RocketMQ skips slaves for a producer-only client).
std::vector<std::pair<std::string, std::string>>
heartbeat_targets(const std::vector<broker_data>& brokers, bool consumers);

client_heartbeat_service_actor::behavior_type client_heartbeat_service(
  client_heartbeat_service_actor::stateful_pointer<client_heartbeat_state> self,
  client_heartbeat_config cfg);

} // namespace rmq
