// Answers GET_ROUTEINFO_BY_TOPIC (RocketMQ ClientRequestProcessor, which has
// its own thread pool for the same reason): assembles a route from the topic,
// broker-address and filter-server tables and caches it until the route
// writer says routes changed. The front actor delegates route queries here,
// so a cached route costs one local hop.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/broker_addr_table.hpp"
#include "actors/namesrv/filter_server_table.hpp"
#include "actors/namesrv/topic_queue_table.hpp"

namespace rmq {

/// Sent by the route writer after a write that changed a route.
using routes_changed_atom = caf::atom_constant<caf::atom("rt_changed")>;

using route_reader_actor = dumpable_actor::extend<
  caf::replies_to<get_route_info_request>::with<topic_route_data>,
  caf::reacts_to<routes_changed_atom>>;

struct route_reader_state {
  broker_addr_table_actor addrs;
  topic_queue_table_actor topics;
  filter_server_table_actor filters;
  std::unordered_map<std::string, topic_route_data> cache;
  /// Bumped by every change; a route fetched across a change is not cached
  /// (it may mix data from before and after).
  uint64_t generation = 0;
  size_t max_entries = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t invalidations = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// `max_entries` bounds the cache (0 turns caching off).
route_reader_actor::behavior_type
route_reader(route_reader_actor::stateful_pointer<route_reader_state> self,
             broker_addr_table_actor addrs, topic_queue_table_actor topics,
             filter_server_table_actor filters, size_t max_entries);

} // namespace rmq
