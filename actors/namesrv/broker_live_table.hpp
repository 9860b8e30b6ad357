// (cluster, broker address) -> liveness: last heartbeat, timeout, topic data
// version, HA address and the broker's actor (RocketMQ
// RouteInfoManager#brokerLiveTable, BrokerLiveInfo). It never removes
// anything on its own: expiries and lost connections become unregistrations
// that the batcher queues and the route writer applies, and every
// unregistration carries a token so a broker that came back in between is
// not wiped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_addr.hpp"
#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/table_messages.hpp"
#include "messages/common/common.hpp"

namespace rmq {

using broker_live_table_actor = dumpable_actor::extend<
  // A registration the route writer accepted; the address is the broker's
  // actor (its "channel"), possibly null.
  caf::reacts_to<caf::put_atom, register_broker_request, caf::actor_addr>,
  caf::replies_to<caf::get_atom, std::string,
                  std::vector<std::string>>::with<std::vector<live_summary>>,
  caf::replies_to<broker_heartbeat_request>::with<caf::ok_atom>,
  caf::replies_to<query_data_version_request>::with<query_data_version_result>,
  // Stamps an UNREGISTER_BROKER request with its token.
  caf::replies_to<unregister_broker_request>::with<unregistration>,
  // Brokers whose heartbeat timed out, not yet reported.
  caf::replies_to<scan_atom>::with<std::vector<unregistration>>,
  // Brokers that registered through this actor.
  caf::replies_to<conn_lost_atom,
                  caf::actor_addr>::with<std::vector<unregistration>>,
  // A report got lost: every reported entry may be reported again.
  caf::reacts_to<unreport_atom>,
  // Removes entries unless their token is stale; returns what was applied.
  caf::replies_to<caf::delete_atom, std::vector<unregistration>>::with<
    std::vector<unregister_broker_request>>,
  // A new default timeout (UPDATE_NAMESRV_CONFIG); applies at once to every
  // broker that sent no timeout of its own.
  caf::replies_to<caf::put_atom, caf::timespan>::with<caf::ok_atom>>;

struct broker_live_table_state {
  using time_point = caf::actor_clock::time_point;
  using key_type = std::pair<std::string, std::string>; // cluster, address

  struct entry {
    std::string broker_name;
    int64_t broker_id = 0;
    time_point last_update;
    /// The broker's own timeout; zero: the table's default.
    caf::timespan timeout{0};
    data_version version;
    std::string ha_server_addr;
    caf::actor_addr channel;
    /// Sequence number of the last registration or heartbeat.
    uint64_t seq = 0;
    /// An unregistration for this entry is queued (don't report it again).
    bool reported = false;
  };

  std::map<key_type, entry> entries;
  uint64_t last_seq = 0;
  caf::timespan default_timeout{0};
  uint64_t expired_total = 0;
  uint64_t stale_skipped_total = 0;

  /// The timeout that applies to `e`: its own or the default.
  caf::timespan timeout_of(const entry& e) const {
    return e.timeout.count() > 0 ? e.timeout : default_timeout;
  }
  void put(const register_broker_request& req, caf::actor_addr channel,
           time_point now);
  /// Refreshes an entry; false if unknown.
  bool touch(const std::string& cluster, const std::string& addr,
             time_point now);
  unregistration stamp(const unregister_broker_request& req);
  std::vector<unregistration> expire(time_point now);
  std::vector<unregistration> lost(const caf::actor_addr& channel);
  /// Clears every `reported` flag; returns how many were set.
  size_t unreport();
  std::vector<unregister_broker_request>
  remove(const std::vector<unregistration>& batch);
  /// This actor's fields for its JSON dump (actors/common/dump.hpp); ages
  /// are taken at `now`.
  nlohmann::json dump_fields(time_point now) const;

  static const char* name;
};

/// `default_timeout` applies to brokers that send no timeout of their own.
broker_live_table_actor::behavior_type broker_live_table(
  broker_live_table_actor::stateful_pointer<broker_live_table_state> self,
  caf::timespan default_timeout);

} // namespace rmq
