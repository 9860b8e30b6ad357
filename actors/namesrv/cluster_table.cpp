#include "actors/namesrv/cluster_table.hpp"

#include <nlohmann/json.hpp>

#include "actors/common/dump.hpp"

namespace rmq {

const char* cluster_table_state::name = "cluster_table";

void cluster_table_state::add(const std::string& cluster,
                              const std::string& broker_name) {
  clusters[cluster].insert(broker_name);
}

void cluster_table_state::remove(const std::vector<broker_removal>& removals) {
  for (auto& x : removals) {
    if (!x.removed)
      continue;
    auto i = clusters.find(x.cluster);
    if (i == clusters.end())
      continue;
    i->second.erase(x.broker_name);
    if (i->second.empty())
      clusters.erase(i);
  }
}

std::vector<std::string>
cluster_table_state::brokers_of(const std::string& cluster) const {
  auto i = clusters.find(cluster);
  if (i == clusters.end())
    return {};
  return {i->second.begin(), i->second.end()};
}

std::map<std::string, std::vector<std::string>>
cluster_table_state::all() const {
  std::map<std::string, std::vector<std::string>> result;
  for (auto& [cluster, names] : clusters)
    result.emplace(cluster,
                   std::vector<std::string>{names.begin(), names.end()});
  return result;
}

nlohmann::json cluster_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [cluster, names] : clusters)
    rows.push_back({{"cluster_name", cluster}, {"broker_names", names}});
  return {{"clusters", rows}};
}

cluster_table_actor::behavior_type
cluster_table(cluster_table_actor::stateful_pointer<cluster_table_state> self) {
  return {
    [=](caf::put_atom, const std::string& cluster, const std::string& broker) {
      self->state.add(cluster, broker);
    },
    [=](caf::delete_atom, const std::vector<broker_removal>& removals) {
      self->state.remove(removals);
    },
    [=](caf::get_atom) { return self->state.all(); },
    [=](caf::get_atom, const std::string& cluster) {
      return self->state.brokers_of(cluster);
    },
    dump_handler(self),
  };
}

} // namespace rmq
