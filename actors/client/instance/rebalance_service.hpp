// The client instance's rebalance service (RocketMQ RebalanceService and
// RebalanceImpl.rebalanceByTopic): decides which queues each registered
// consumer owns and tells it after every round.
//
// A round for one consumer takes each of its topics on its own: the
// readable queues from the route cache (runtime/client/subscribe_queues.hpp), the
// group's members from GET_CONSUMER_LIST_BY_GROUP at one broker of the
// topic (the next broker when one fails), both sorted, then the
// consumer's allocate strategy. Broadcasting consumers get every queue. A
// topic whose route or member list cannot be had keeps its previous
// assignment: nothing is sent for it, as RocketMQ keeps its process queues
// on a transient error.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_addr.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/client/client.hpp"
#include "messages/client/consumer.hpp"

namespace rmq {

struct rebalance_service_config {
  /// This client's id: the member the allocation is for.
  std::string client_id;
  route_cache_actor routes;
  peer_directory_actor directory;
  /// RocketMQ rocketmq.client.rebalance.waitInterval (20 s); zero: no
  /// periodic round.
  caf::timespan interval = std::chrono::seconds{20};
  /// Bound of one connect and of one GET_CONSUMER_LIST_BY_GROUP (RocketMQ
  /// uses 3 s for the latter).
  caf::timespan request_timeout = std::chrono::seconds{3};
};

/// One registered consumer.
struct rebalance_entry {
  rebalance_target_actor target;
  rebalance_subscription sub;
  /// The last assignment sent, by topic.
  std::map<std::string, std::vector<message_queue>> owned;
  int64_t rounds = 0;
  /// Topics whose last round kept the previous assignment, and why.
  std::map<std::string, std::string> kept;
};

struct rebalance_service_state {
  rebalance_service_config cfg;
  std::map<caf::actor_addr, rebalance_entry> consumers;
  /// Groups with a round in flight, and those that must run once more when
  /// it ends (consumer_ids_changed during it: a burst becomes one round).
  std::set<std::string> running;
  std::set<std::string> again;
  int64_t ticks = 0;
  int64_t notifications = 0;
  int64_t member_list_failures = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

rebalance_service_actor::behavior_type rebalance_service(
  rebalance_service_actor::stateful_pointer<rebalance_service_state> self,
  rebalance_service_config cfg);

} // namespace rmq
