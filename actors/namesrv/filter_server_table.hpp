// (cluster, broker address) -> filter server addresses (RocketMQ
// RouteInfoManager#filterServerTable). Written by the route writer; read for
// routes, which map each broker address of a topic to its filter servers.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/table_messages.hpp"
#include "messages/common/common.hpp"

namespace rmq {

using filter_server_table_actor = dumpable_actor::extend<
  // (cluster, address, servers): an empty list removes the entry.
  caf::reacts_to<caf::put_atom, std::string, std::string,
                 std::vector<std::string>>,
  caf::reacts_to<caf::delete_atom, std::vector<unregister_broker_request>>,
  // Address -> servers for those of these addresses that have any.
  caf::replies_to<caf::get_atom, std::vector<std::string>>::with<
    std::map<std::string, std::vector<std::string>>>>;

struct filter_server_table_state {
  std::map<std::pair<std::string, std::string>, std::vector<std::string>>
    servers;

  void put(const std::string& cluster, const std::string& addr,
           std::vector<std::string> list);
  void remove(const std::vector<unregister_broker_request>& requests);
  std::map<std::string, std::vector<std::string>>
  find(const std::vector<std::string>& addrs) const;
  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

filter_server_table_actor::behavior_type filter_server_table(
  filter_server_table_actor::stateful_pointer<filter_server_table_state> self);

} // namespace rmq
