// The broker's topic config table (RocketMQ TopicConfigManager): every
// topic of the broker with its queues and perm, the data version the broker
// registers with, the system topics RocketMQ creates at start, TBW102
// auto-creation for sends and the retry/DLQ topics of consumer groups. It
// rewrites `config/topics.json` after every change, before answering; it
// does blocking file I/O, so the broker node spawns it detached:
//   sys.spawn<caf::detached>(topic_config_table, options)
//
// Watchers: `(subscribe_atom, actor)` monitors the actor and, after every
// change, sends it `(caf::put_atom, topic_config_set)` with all topics and
// the new data version. Nothing is sent at subscription: subscribe first,
// then ask `get_atom` (one mailbox, so no change falls in between).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/broker/topics.hpp"
#include "messages/namesrv/route.hpp"
#include "runtime/common/config_file.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

/// Topic names RocketMQ reserves (TopicValidator, MixAll).
namespace system_topics {
constexpr const char* auto_create = "TBW102";
constexpr const char* schedule = "SCHEDULE_TOPIC_XXXX";
constexpr const char* benchmark = "BenchmarkTest";
constexpr const char* trans_half = "RMQ_SYS_TRANS_HALF_TOPIC";
constexpr const char* trace = "RMQ_SYS_TRACE_TOPIC";
constexpr const char* trans_op_half = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
constexpr const char* trans_check_max_time = "TRANS_CHECK_MAX_TIME_TOPIC";
constexpr const char* self_test = "SELF_TEST_TOPIC";
constexpr const char* offset_moved_event = "OFFSET_MOVED_EVENT";
constexpr const char* rocksdb_offset = "CHECKPOINT_TOPIC";
constexpr const char* wheel_timer = "rmq_sys_wheel_timer";
/// Every topic starting with this is a system topic.
constexpr const char* prefix = "rmq_sys_";
constexpr const char* retry_prefix = "%RETRY%";
constexpr const char* dlq_prefix = "%DLQ%";
/// Queues of SCHEDULE_TOPIC_XXXX: one per delay level.
constexpr int32_t schedule_queue_nums = 18;
} // namespace system_topics

/// Largest queue count a put or a group topic may ask for (RocketMQ's own
/// BenchmarkTest topic has 1024; the broker itself checks no bound).
constexpr int32_t max_topic_queue_nums = 1024;

/// Longest retry or DLQ topic name (RocketMQ TopicValidator).
constexpr size_t max_retry_or_dlq_topic_length = 255;

/// Returns `<store_root>/config/topics.json` (BrokerPathConfigHelper).
std::string topics_json_path(const std::string& store_root);

/// Returns whether RocketMQ forbids clients to send to `topic`
/// (TopicValidator#isNotAllowedSendTopic).
bool is_not_allowed_send_topic(const std::string& topic);

/// Checks a topic name as the broker does (TopicValidator#validateTopic):
/// the client rules of `check_topic`, except that retry and DLQ topics may
/// have up to `max_retry_or_dlq_topic_length` characters.
caf::error check_broker_topic(const std::string& topic);

/// How the broker node configures the table (RocketMQ BrokerConfig).
struct topic_config_table_options {
  /// The table's file; empty keeps the table in memory only.
  std::string config_path;
  std::string broker_name = "broker-a";
  std::string cluster_name = "DefaultCluster";
  /// Creates TBW102 at start and lets sends create topics through it.
  bool auto_create_topic_enable = true;
  /// Queues of TBW102.
  int32_t default_topic_queue_nums = 8;
  /// Makes the cluster-name topic readable and writable (else INHERIT only).
  bool cluster_topic_enable = true;
  /// Makes the broker-name topic readable and writable (else INHERIT only).
  bool broker_topic_enable = true;
  /// Creates the message trace topic at start.
  bool trace_topic_enable = false;
  std::string trace_topic_name = system_topics::trace;
  /// Queues of the pop revive topic `rmq_sys_REVIVE_LOG_<cluster>`.
  int32_t revive_queue_num = 8;
  /// Creates `rmq_sys_wheel_timer` (RocketMQ timerWheelEnable).
  bool timer_wheel_enable = true;
  /// For data-version timestamps (RocketMQ stores wall-clock time there).
  rmq::wall_clock wall_clock;
  /// Topic -> queue count of the consume queues in the store: a damaged
  /// file is rebuilt from them, so that stored messages stay routed and
  /// consumable (read/write perm; other settings must be set again).
  std::map<std::string, int32_t> stored_queue_counts;
};

/// State and logic of the table, usable without an actor system.
struct topic_config_table_state {
  // -- member variables ------------------------------------------------------

  topic_config_table_options options;

  /// Topic name -> config.
  std::map<std::string, topic_config> topics;

  data_version version;

  /// Topics this broker reserves: RocketMQ's fixed set plus the names
  /// derived from the broker and cluster names at start.
  std::vector<std::string> reserved_topics;

  /// Actors told about every change.
  std::vector<caf::actor> watchers;

  /// The file: loads, saves, a damaged copy, a failing save; a file that
  /// could be neither read nor moved aside blocks every change
  /// (runtime/common/config_file.hpp).
  config_file file;

  /// A save-again message is on its way (the actor's retry timer).
  bool retry_armed = false;

  int64_t changes = 0; ///< Changes made and announced.

  /// What `self->name()` returns; also the "actor" field of dumps.
  static const char* name;

  // -- logic -----------------------------------------------------------------

  /// Creates the system topics, then loads the file over them (RocketMQ
  /// init + load: a stored topic wins over its default). A corrupt file is
  /// kept as `path + ".corrupt.<n>"` and the table starts with the
  /// defaults and the topics of `stored_queue_counts`; a file that cannot
  /// be read or moved aside blocks changes. Never throws.
  void init(topic_config_table_options opts);

  /// Returns whether `topic` is a system topic (TopicValidator#isSystemTopic
  /// with this broker's reserved names).
  bool is_system_topic(const std::string& topic) const;

  /// Returns the config of `topic` or `topic_not_exist`.
  caf::expected<topic_config> get(const std::string& topic) const;

  /// Returns every topic and the data version.
  topic_config_set snapshot() const;

  /// UPDATE_AND_CREATE_TOPIC: refuses invalid names, system topics, queue
  /// counts outside 1..`max_topic_queue_nums`, perms outside 0..7 and
  /// filter types other than 0/1 (`invalid_parameter`). An unchanged
  /// config keeps the version (RocketMQ answers it as idempotent).
  caf::expected<data_version> put(const topic_config& cfg);

  /// DELETE_TOPIC_IN_BROKER: refuses an empty name and system topics
  /// (`invalid_parameter`); an unknown topic keeps the version.
  caf::expected<data_version> erase(const std::string& topic);

  /// createTopicInSendMessageMethod; see `topic_for_send_request`. Also
  /// refuses names `check_broker_topic` refuses and, with `no_permission`,
  /// the topics clients may not send to.
  caf::expected<topic_config> for_send(const topic_for_send_request& x);

  /// createTopicInSendMessageBackMethod: `%RETRY%<group>` or, with `dlq`,
  /// `%DLQ%<group>`, created with the request's queues and perm if missing.
  caf::expected<topic_config> group_topic(const group_topic_request& x);

  /// A slave's table takes its master's topics and data version whole
  /// (RocketMQ SlaveSynchronize#syncTopicConfig); the same version
  /// changes nothing. Saved like any change.
  caf::error sync(const topic_config_set& master);

  /// Returns true if anything changed since the last `take_changed()`.
  bool take_changed();

  /// Saves again after a failed save; true while it still fails.
  bool save_again();

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

private:
  // Adds or replaces `cfg`, bumps the version and saves; a failed save
  // keeps the change (config_file).
  caf::error commit(const topic_config& cfg);

  // Removes `topic`, bumps the version and saves.
  caf::error commit_erase(const std::string& topic);

  void bump_version();

  void save();

  void load();

  bool changed_ = false;
};

/// Spawns with `sys.spawn<caf::detached>(topic_config_table, options)`.
topic_config_table_actor::behavior_type topic_config_table(
  topic_config_table_actor::stateful_pointer<topic_config_table_state> self,
  topic_config_table_options options);

} // namespace rmq
