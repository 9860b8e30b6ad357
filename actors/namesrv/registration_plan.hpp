// The decisions of RocketMQ's RouteInfoManager#registerBroker as a pure
// function: given the request, the broker group as it stands and what the
// liveness table knows, what to write where and what to answer.
#pragma once

#include <string>
#include <vector>

#include "actors/namesrv/table_messages.hpp"

namespace rmq {

struct registration_plan {
  /// Refused: another address holds this broker id with a newer state
  /// version. Nothing is written.
  bool rejected = false;
  std::string reject_reason;
  /// The group record to store.
  broker_data group;
  /// Only a master or a prime slave (the smallest id of a group without
  /// a master) touches topic routes.
  bool touch_topics = false;
  broker_topics_update topics;
  register_broker_result result;
};

/// `current` is null for an unknown group; `live` holds one row per address
/// of the current group plus the registering address.
registration_plan plan_registration(const register_broker_request& req,
                                    const broker_data* current,
                                    const std::vector<live_summary>& live,
                                    bool delete_topic_with_registration);

} // namespace rmq
