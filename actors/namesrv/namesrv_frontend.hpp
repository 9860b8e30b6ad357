// The one actor a NameServer publishes (RocketMQ DefaultRequestProcessor +
// ClientRequestProcessor + BrokerHousekeepingService). It validates each
// request and passes it on: routes to the route reader, registrations and
// topic/perm writes to the route writer, heartbeats and data-version queries
// to the live table, unregistrations through the live table to the batcher,
// KV requests relayed to the KV table; member groups, cluster info and topic
// lists it reads from their tables, and a namesrv config update it hands to
// the actors that use each setting. It watches registered brokers: when CAF
// reports a broker's connection lost, the broker is unregistered at once.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_addr.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/namesrv/namesrv_config.hpp"
#include "actors/namesrv/route_writer.hpp"
#include "actors/namesrv/scan_timer.hpp"
#include "actors/namesrv/unregistration_batcher.hpp"
#include "messages/namesrv/namesrv.hpp"

namespace rmq {

struct namesrv_frontend_options {
  /// RocketMQ enableAllTopicList (on).
  bool enable_all_topic_list = true;
  /// RocketMQ enableTopicList (on): GET_TOPICS_BY_CLUSTER.
  bool enable_topic_list = true;
  /// RocketMQ orderMessageEnable (off): routes carry ORDER_TOPIC_CONFIG.
  bool order_message_enable = false;
  /// Shown in dumps.
  std::string listen;
  /// Every setting of the node, for GET/UPDATE_NAMESRV_CONFIG; the three
  /// flags above are this node's copy of the same settings.
  namesrv_options config;
};

struct namesrv_frontend_state {
  namesrv_tables tables;
  route_reader_actor reader;
  route_writer_actor writer;
  unregistration_batcher_actor batcher;
  scan_timer_actor scanner;
  namesrv_frontend_options options;
  /// Senders of registrations we monitor (their "channels").
  std::set<caf::actor_addr> watched;
  uint64_t connections_lost = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

namesrv_actor::behavior_type
namesrv_frontend(namesrv_actor::stateful_pointer<namesrv_frontend_state> self,
                 namesrv_tables tables, route_reader_actor reader,
                 route_writer_actor writer,
                 unregistration_batcher_actor batcher, scan_timer_actor scanner,
                 namesrv_frontend_options options);

} // namespace rmq
