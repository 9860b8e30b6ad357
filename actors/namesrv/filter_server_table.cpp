#include "actors/namesrv/filter_server_table.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "actors/common/dump.hpp"

namespace rmq {

const char* filter_server_table_state::name = "filter_server_table";

void filter_server_table_state::put(const std::string& cluster,
                                    const std::string& addr,
                                    std::vector<std::string> list) {
  if (list.empty())
    servers.erase({cluster, addr});
  else
    servers[{cluster, addr}] = std::move(list);
}

void filter_server_table_state::remove(
  const std::vector<unregister_broker_request>& requests) {
  for (auto& req : requests)
    servers.erase({req.cluster_name, req.broker_addr});
}

std::map<std::string, std::vector<std::string>>
filter_server_table_state::find(const std::vector<std::string>& addrs) const {
  std::map<std::string, std::vector<std::string>> result;
  if (servers.empty())
    return result;
  for (auto& [key, list] : servers)
    if (std::find(addrs.begin(), addrs.end(), key.second) != addrs.end())
      result[key.second] = list;
  return result;
}

nlohmann::json filter_server_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [key, list] : servers)
    rows.push_back({{"cluster_name", key.first},
                    {"broker_addr", key.second},
                    {"filter_servers", list}});
  return {{"entries", rows}};
}

filter_server_table_actor::behavior_type filter_server_table(
  filter_server_table_actor::stateful_pointer<filter_server_table_state> self) {
  return {
    [=](caf::put_atom, const std::string& cluster, const std::string& addr,
        const std::vector<std::string>& list) {
      self->state.put(cluster, addr, list);
    },
    [=](caf::delete_atom,
        const std::vector<unregister_broker_request>& requests) {
      self->state.remove(requests);
    },
    [=](caf::get_atom, const std::vector<std::string>& addrs) {
      return self->state.find(addrs);
    },
    dump_handler(self),
  };
}

} // namespace rmq
