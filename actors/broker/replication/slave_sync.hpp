// A slave's copy of its master's metadata (docs/replication.md,
// "Metadata"; RocketMQ SlaveSynchronize): every `interval` it asks the
// master's metadata service, passing the topic and group versions it has,
// and hands each table what came: topics and groups whole (when changed),
// consumer offsets, delay-level offsets and the timer's read time only
// forward. The replication client names the master (`put_atom`) once
// connected, and a null source once it is gone; no master, no asks.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/replication.hpp"

namespace rmq {

struct slave_sync_options {
  std::string broker_name;
  int64_t broker_id = 1;
  topic_config_table_actor topics;
  subscription_group_table_actor groups;
  consumer_offset_table_actor offsets;
  schedule_service_actor schedule;
  timer_service_actor timer;
  /// Between two asks (RocketMQ: 10 s for offsets, 60 s for the rest).
  caf::timespan interval = std::chrono::seconds{1};
  caf::timespan timeout = std::chrono::seconds{10};
};

struct slave_sync_state {
  slave_sync_options opts;
  metadata_source_actor master;
  /// What the tables have of the master's (sent with each ask).
  data_version topics;
  data_version groups;
  /// An ask is on its way; `generation` tells a lost master's answer.
  bool asking = false;
  /// A tick is on its way.
  bool armed = false;
  int64_t generation = 0;
  int64_t syncs = 0;
  int64_t topic_syncs = 0;
  int64_t group_syncs = 0;
  int64_t failures = 0;
  std::string last_error;

  nlohmann::json dump_fields() const;

  static const char* name;
};

slave_sync_actor::behavior_type
slave_sync(slave_sync_actor::stateful_pointer<slave_sync_state> self,
           slave_sync_options opts);

} // namespace rmq
