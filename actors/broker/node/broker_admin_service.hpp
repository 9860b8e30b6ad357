// Answers the broker requests that take several actors (RocketMQ
// AdminBrokerProcessor's getTopicStatsInfo, getConsumeStats,
// getBrokerRuntimeInfo, getEarliestMsgStoretime): it asks the tables and
// the store actors and assembles the answer, so the front actor stays a
// plain router. Holds no state but counters: respawnable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/admin.hpp"
#include "messages/broker/pull.hpp"
#include "messages/broker/send.hpp"
#include "messages/broker/topics.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

struct broker_admin_options {
  std::string broker_name;
  /// "ASYNC_FLUSH" or "SYNC_FLUSH", for brokerStatus.
  std::string flush_disk_type = "ASYNC_FLUSH";
  /// Wall-clock ms when the broker started (bootTimestamp).
  int64_t boot_timestamp = 0;
  /// The runtime figure ("runtime").
  rmq::wall_clock wall_clock;
};

/// The actors the admin service asks.
struct broker_admin_peers {
  topic_config_table_actor topics;
  consumer_offset_table_actor offsets;
  queue_service_actor queue_service;
  commit_log_writer_actor commit_log;
  send_processor_actor send;
  pull_processor_actor pull;
  /// The delay-level schedule service (its dump); may be null.
  dumpable_actor schedule;
  /// The transaction check service (its dump); may be null.
  dumpable_actor transaction_check;
  /// The timer service (its dump); may be null.
  dumpable_actor timer;
  /// The subscription group table (its dump: the file's state); may be
  /// null.
  dumpable_actor groups;
  /// A master's ha_service or a slave's ha_client (its dump: the copy's
  /// state); may be null.
  dumpable_actor ha;
};

struct broker_admin_state {
  broker_admin_options options;
  broker_admin_peers peers;
  int64_t requests = 0;
  int64_t failed = 0;

  nlohmann::json dump_fields() const;

  static const char* name;
};

broker_admin_service_actor::behavior_type broker_admin_service(
  broker_admin_service_actor::stateful_pointer<broker_admin_state> self,
  broker_admin_options options, broker_admin_peers peers);

} // namespace rmq
