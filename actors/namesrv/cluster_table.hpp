// Cluster name -> broker names (RocketMQ RouteInfoManager#clusterAddrTable).
// Written by the route writer; read by it (topic deletion per cluster) and
// by the front actor (cluster info, topics by cluster).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/table_messages.hpp"
#include "messages/common/common.hpp"

namespace rmq {

using cluster_table_actor = dumpable_actor::extend<
  // Adds a broker name to a cluster.
  caf::reacts_to<caf::put_atom, std::string, std::string>,
  // Removes groups that are gone.
  caf::reacts_to<caf::delete_atom, std::vector<broker_removal>>,
  // All clusters.
  caf::replies_to<caf::get_atom>::with<
    std::map<std::string, std::vector<std::string>>>,
  // Broker names of one cluster (empty if unknown).
  caf::replies_to<caf::get_atom, std::string>::with<std::vector<std::string>>>;

struct cluster_table_state {
  std::map<std::string, std::set<std::string>> clusters;

  void add(const std::string& cluster, const std::string& broker_name);
  void remove(const std::vector<broker_removal>& removals);
  std::vector<std::string> brokers_of(const std::string& cluster) const;
  std::map<std::string, std::vector<std::string>> all() const;
  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

cluster_table_actor::behavior_type
cluster_table(cluster_table_actor::stateful_pointer<cluster_table_state> self);

} // namespace rmq
