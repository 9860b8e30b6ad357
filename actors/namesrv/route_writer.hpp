// Applies the NameServer writes that span several tables (register and
// unregister brokers, register and delete topics; wipe/add write perm pass
// through too) one at a time: the actor-shaped replacement of
// RouteInfoManager's write lock. It awaits its own reads, so no second write
// starts before the first one is sent; table writes are sends, which CAF
// delivers in order per table. A route the route reader assembles may see a
// write half-applied (clients retry, as with RocketMQ's multiple
// NameServers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_addr.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/broker_addr_table.hpp"
#include "actors/namesrv/broker_live_table.hpp"
#include "actors/namesrv/cluster_table.hpp"
#include "actors/namesrv/filter_server_table.hpp"
#include "actors/namesrv/kv_config_table.hpp"
#include "actors/namesrv/route_reader.hpp"
#include "actors/namesrv/topic_queue_table.hpp"

namespace rmq {

struct route_writer_options {
  /// RocketMQ deleteTopicWithBrokerRegistration (off): a registration
  /// without a topic removes this broker from it.
  bool delete_topic_with_broker_registration = false;
  /// RocketMQ returnOrderTopicConfigToBroker (on).
  bool return_order_topic_config_to_broker = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, route_writer_options& x) {
  return f(caf::meta::type_name("rmq.route_writer_options"),
           x.delete_topic_with_broker_registration,
           x.return_order_topic_config_to_broker);
}

using route_writer_actor = dumpable_actor::extend<
  caf::replies_to<register_broker_request,
                  caf::actor_addr>::with<register_broker_result>,
  caf::replies_to<std::vector<unregistration>>::with<
    std::vector<unregister_broker_request>>,
  caf::replies_to<register_topic_request>::with<caf::ok_atom>,
  caf::replies_to<delete_topic_request>::with<caf::ok_atom>,
  caf::replies_to<wipe_write_perm_request>::with<write_perm_result>,
  caf::replies_to<add_write_perm_request>::with<write_perm_result>,
  // New options (UPDATE_NAMESRV_CONFIG), for the writes after this one.
  caf::replies_to<caf::put_atom, route_writer_options>::with<caf::ok_atom>>;

/// The tables a NameServer consists of.
struct namesrv_tables {
  broker_addr_table_actor addrs;
  cluster_table_actor clusters;
  broker_live_table_actor live;
  topic_queue_table_actor topics;
  filter_server_table_actor filters;
  kv_config_table_actor kv;
};

struct route_writer_state {
  namesrv_tables tables;
  /// Told after every write that changed a route, so it drops cached
  /// routes.
  route_reader_actor reader;
  route_writer_options options;
  uint64_t registrations = 0;
  uint64_t rejected_registrations = 0;
  uint64_t unregistration_batches = 0;
  uint64_t unregistered_brokers = 0;
  uint64_t topic_writes = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

route_writer_actor::behavior_type
route_writer(route_writer_actor::stateful_pointer<route_writer_state> self,
             namesrv_tables tables, route_reader_actor reader,
             route_writer_options options);

} // namespace rmq
