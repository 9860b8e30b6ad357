// The master's metadata for its slaves (docs/replication.md, "Metadata";
// RocketMQ answers a slave's SlaveSynchronize with GET_ALL_TOPIC_CONFIG,
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG, GET_ALL_CONSUMER_OFFSET,
// GET_ALL_DELAY_OFFSET and the timer checkpoint): one ask gathers them
// all. Topics and groups are sent only when their data version is not the
// slave's; offsets, delay levels and the timer's read time every time.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/replication.hpp"

namespace rmq {

struct metadata_service_options {
  /// The group: only its slaves are answered.
  std::string broker_name;
  topic_config_table_actor topics;
  subscription_group_table_actor groups;
  consumer_offset_table_actor offsets;
  schedule_service_actor schedule;
  timer_service_actor timer;
  /// How long each table may take.
  caf::timespan timeout = std::chrono::seconds{10};
};

struct metadata_service_state {
  metadata_service_options opts;
  int64_t asks = 0;
  int64_t refused = 0;
  int64_t failures = 0;

  nlohmann::json dump_fields() const;

  static const char* name;
};

metadata_service_actor::behavior_type metadata_service(
  metadata_service_actor::stateful_pointer<metadata_service_state> self,
  metadata_service_options opts);

} // namespace rmq
