// The client instance's route cache (RocketMQ MQClientInstance
// topicRouteTable, updateTopicRouteInfoFromNameServer and its
// pollNameServerInterval task): the routes of the topics in use, asked of
// one NameServer at a time.
//
// The NameServer starts as a random one of the list and stays the same
// while it answers; a failed or timed-out request rotates to the next and
// the fetch tries that one, until each NameServer was tried once. Then the
// last good route is kept (and answered), or service_not_available for a
// topic never fetched. Every poll interval (one timer) refreshes every
// cached topic; a changed route is pushed to the listeners. A broker the
// peer directory lost refreshes the topics it serves at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"

namespace rmq {

struct route_cache_config {
  /// NameServer addresses ("host:port"), as client_config::namesrv lists
  /// them; at least one.
  std::vector<std::string> namesrv_addrs;
  /// Where the NameServer connections come from.
  peer_directory_actor directory;
  /// RocketMQ pollNameServerInterval; zero: no periodic refresh.
  caf::timespan poll_interval = std::chrono::seconds{30};
  /// Bound of one connect (the directory's own bound; this actor waits a
  /// little longer for its answer).
  caf::timespan connect_timeout = std::chrono::seconds{3};
  /// Bound of one GET_ROUTEINFO_BY_TOPIC (RocketMQ MQClientAPIImpl uses
  /// 3 s for the poll).
  caf::timespan request_timeout = std::chrono::seconds{3};
  /// Picks the first NameServer; none: a random one.
  std::optional<uint32_t> seed;
};

/// One cached topic.
struct cached_route {
  topic_route_data route;
  /// Actor-clock time of the last good fetch.
  caf::actor_clock::time_point updated;
  int64_t fetches = 0;
  int64_t failures = 0;
  int64_t changes = 0;
  std::string last_error;
};

/// One fetch in flight.
struct route_fetch {
  std::vector<caf::typed_response_promise<topic_route_data>> waiters;
  /// NameServers still to try in this fetch.
  size_t tries_left = 0;
  std::string last_error;
};

struct namesrv_stats {
  std::string addr;
  int64_t requests = 0;
  int64_t failures = 0;
  /// Failures since its last answer.
  int64_t streak = 0;
  std::string last_error;
};

struct route_cache_state {
  route_cache_config cfg;
  std::vector<namesrv_stats> namesrvs;
  /// The NameServer asked now.
  size_t index = 0;
  std::map<std::string, cached_route> topics;
  std::map<std::string, route_fetch> fetching;
  std::vector<route_listener_actor> listeners;
  int64_t rotations = 0;
  int64_t ticks = 0;
  caf::actor_clock* clock = nullptr;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Whether two routes differ once their queue and broker lists are sorted
/// by broker name (RocketMQ topicRouteDataChanged).
bool route_changed(const topic_route_data& x, const topic_route_data& y);

/// Every broker of `routes`, one entry per broker name, addresses merged.
std::vector<broker_data>
brokers_of(const std::map<std::string, cached_route>& routes);

route_cache_actor::behavior_type
route_cache(route_cache_actor::stateful_pointer<route_cache_state> self,
            route_cache_config cfg);

} // namespace rmq
