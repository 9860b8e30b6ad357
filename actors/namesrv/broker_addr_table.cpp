#include "actors/namesrv/broker_addr_table.hpp"

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* broker_addr_table_state::name = "broker_addr_table";

std::vector<broker_removal> broker_addr_table_state::remove(
  const std::vector<unregister_broker_request>& requests) {
  std::map<std::string, broker_removal> touched;
  for (auto& req : requests) {
    auto i = brokers.find(req.broker_name);
    if (i == brokers.end())
      continue;
    auto& addrs = i->second.broker_addrs;
    for (auto j = addrs.begin(); j != addrs.end();)
      j = j->second == req.broker_addr ? addrs.erase(j) : std::next(j);
    sync_remoting_addrs(i->second);
    auto& out = touched[req.broker_name];
    out.cluster = i->second.cluster;
    out.broker_name = req.broker_name;
    if (addrs.empty()) {
      out.removed = true;
      out.strip_write = false;
      brokers.erase(i);
    } else {
      out.strip_write = i->second.enable_acting_master
                        && addrs.count(master_id) == 0;
    }
  }
  std::vector<broker_removal> result;
  for (auto& kvp : touched)
    result.push_back(std::move(kvp.second));
  return result;
}

std::vector<broker_data>
broker_addr_table_state::find(const std::vector<std::string>& names) const {
  std::vector<broker_data> result;
  result.reserve(names.size());
  for (auto& name : names) {
    auto i = brokers.find(name);
    if (i != brokers.end())
      result.push_back(i->second);
  }
  return result;
}

nlohmann::json broker_addr_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [name, data] : brokers) {
    auto addrs = nlohmann::json::array();
    for (auto& [id, addr] : data.broker_addrs)
      addrs.push_back({{"broker_id", id}, {"broker_addr", addr}});
    rows.push_back({{"broker_name", name},
                    {"cluster_name", data.cluster},
                    {"zone_name", data.zone_name},
                    {"enable_acting_master", data.enable_acting_master},
                    {"broker_addrs", addrs}});
  }
  return {{"brokers", rows}};
}

broker_addr_table_actor::behavior_type broker_addr_table(
  broker_addr_table_actor::stateful_pointer<broker_addr_table_state> self) {
  return {
    [=](caf::get_atom,
        const std::string& broker_name) -> caf::result<broker_data> {
      auto i = self->state.brokers.find(broker_name);
      if (i == self->state.brokers.end())
        return make_error(errc::broker_not_found,
                          "unknown broker " + broker_name);
      return i->second;
    },
    [=](caf::get_atom, const std::vector<std::string>& names) {
      return self->state.find(names);
    },
    [=](caf::get_atom) { return self->state.brokers; },
    [=](caf::put_atom, const broker_data& data) {
      self->state.brokers[data.broker_name] = data;
    },
    [=](caf::delete_atom,
        const std::vector<unregister_broker_request>& requests) {
      return self->state.remove(requests);
    },
    dump_handler(self),
  };
}

} // namespace rmq
