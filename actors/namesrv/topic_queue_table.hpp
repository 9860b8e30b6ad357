// Topic -> broker name -> queue data (RocketMQ
// RouteInfoManager#topicQueueTable). Written only by the route writer (broker
// registrations and removals, topic registration and deletion, wipe/add write
// perm, each a single atomic step here).
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

using topic_queue_table_actor = dumpable_actor::extend<
  // Answers whether any route changed.
  caf::replies_to<caf::put_atom, broker_topics_update>::with<bool>,
  caf::reacts_to<caf::put_atom, register_topic_request>,
  // Deletes a topic everywhere.
  caf::reacts_to<caf::delete_atom, std::string>,
  // Deletes a topic from these brokers only (one cluster's brokers).
  caf::reacts_to<caf::delete_atom, std::string, std::vector<std::string>>,
  // Drops the queues of removed groups, strips write of masterless ones.
  caf::reacts_to<caf::delete_atom, std::vector<broker_removal>>,
  caf::replies_to<wipe_write_perm_request>::with<write_perm_result>,
  caf::replies_to<add_write_perm_request>::with<write_perm_result>,
  // Queue data of one topic; topic_not_exist if unknown.
  caf::replies_to<caf::get_atom, std::string>::with<std::vector<queue_data>>,
  caf::replies_to<get_all_topic_list_request>::with<topic_list>,
  // Topics with queues on any of these brokers.
  caf::replies_to<caf::get_atom, std::vector<std::string>>::with<topic_list>>;

struct topic_queue_table_state {
  std::map<std::string, std::map<std::string, queue_data>> topics;

  /// Returns whether any queue data changed.
  bool apply(const broker_topics_update& update);
  void apply(const register_topic_request& req);
  void erase(const std::string& topic);
  void erase(const std::string& topic, const std::vector<std::string>& names);
  void remove(const std::vector<broker_removal>& removals);
  int32_t wipe_write_perm(const std::string& broker_name);
  int32_t add_write_perm(const std::string& broker_name);
  std::vector<queue_data> queues_of(const std::string& topic) const;
  topic_list all_topics() const;
  topic_list topics_on(const std::vector<std::string>& broker_names) const;
  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

topic_queue_table_actor::behavior_type topic_queue_table(
  topic_queue_table_actor::stateful_pointer<topic_queue_table_state> self);

} // namespace rmq
