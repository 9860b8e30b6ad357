// Broker name -> its master/slave group: cluster, id -> address
// (RocketMQ RouteInfoManager#brokerAddrTable). Written by the route writer;
// read by the route reader (routes), the route writer, and the front actor
// (member groups, cluster info).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/table_messages.hpp"
#include "messages/common/common.hpp"

namespace rmq {

using broker_addr_table_actor = dumpable_actor::extend<
  // One group; broker_not_found if unknown.
  caf::replies_to<caf::get_atom, std::string>::with<broker_data>,
  // The known groups among these names, in the same order.
  caf::replies_to<caf::get_atom,
                  std::vector<std::string>>::with<std::vector<broker_data>>,
  // Every group.
  caf::replies_to<caf::get_atom>::with<std::map<std::string, broker_data>>,
  // Replaces one group (the route writer planned it).
  caf::reacts_to<caf::put_atom, broker_data>,
  // Removes addresses; says per group whether it is gone.
  caf::replies_to<caf::delete_atom, std::vector<unregister_broker_request>>::
    with<std::vector<broker_removal>>>;

struct broker_addr_table_state {
  std::map<std::string, broker_data> brokers;

  /// Removes every id that maps to a request's address (by address, not by
  /// id, as RocketMQ does: after a role switch the id may have changed).
  std::vector<broker_removal>
  remove(const std::vector<unregister_broker_request>& requests);

  std::vector<broker_data> find(const std::vector<std::string>& names) const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

broker_addr_table_actor::behavior_type broker_addr_table(
  broker_addr_table_actor::stateful_pointer<broker_addr_table_state> self);

} // namespace rmq
