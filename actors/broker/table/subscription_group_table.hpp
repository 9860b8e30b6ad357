// The broker's subscription group table (RocketMQ SubscriptionGroupManager):
// group -> SubscriptionGroupConfig, with a data version, persisted to
// config/subscriptionGroup.json after every change. It does blocking file
// I/O, so the broker node spawns it detached:
//   sys.spawn<caf::detached>(subscription_group_table, options)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/broker/client_manager.hpp"
#include "runtime/common/config_file.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

/// Returns the wall-clock time in milliseconds since the epoch (the data
/// version's timestamp, which RocketMQ stores); tests inject their own.

/// What the broker node passes to the table.
struct subscription_group_table_options {
  /// The file (…/config/subscriptionGroup.json); empty: memory only.
  std::string path;
  /// RocketMQ autoCreateSubscriptionGroup.
  bool auto_create = true;
  /// For the data version's timestamp.
  rmq::wall_clock wall_clock;
};

/// The groups RocketMQ creates at start (SubscriptionGroupManager#init):
/// tools, filter server, self test, and the ONS / transaction groups (these
/// with broadcast consumption enabled).
std::vector<subscription_group_config> system_subscription_groups();

/// State and logic of the table, usable without an actor system.
struct subscription_group_table_state {
  // -- member variables ------------------------------------------------------

  std::map<std::string, subscription_group_config> groups;

  data_version version;

  subscription_group_table_options options;

  /// The file: loads, saves, a damaged copy, a failing save
  /// (runtime/common/config_file.hpp).
  config_file file;

  /// A save-again message is on its way (the actor's retry timer).
  bool retry_armed = false;

  int64_t auto_created = 0; ///< Groups created by `find`.

  /// What `self->name()` returns; also the "actor" field of dumps.
  static const char* name;

  // -- logic -----------------------------------------------------------------

  /// Puts the system groups in, then loads the file over them (a damaged
  /// file is kept aside, config_file). Never throws.
  void load(subscription_group_table_options opts);

  /// Returns the config or subscription_group_not_exist.
  caf::expected<subscription_group_config> get(const std::string& group) const;

  /// Every group and the version.
  subscription_group_set list() const;

  /// Creates or replaces a group, bumps the version and saves; a failed
  /// save keeps the change (served from memory, saved again by the
  /// actor). An invalid name or negative retry settings are
  /// `invalid_parameter`; a file that could not be read refuses changes.
  caf::expected<data_version> put(const subscription_group_config& cfg);

  /// Removes a group (unknown: success, version unchanged) and saves.
  caf::expected<data_version> erase(const std::string& group);

  /// A slave's table takes its master's groups and version whole (RocketMQ
  /// SlaveSynchronize#syncSubscriptionGroupConfig); the same version
  /// changes nothing.
  caf::error sync(const subscription_group_set& master);

  /// Returns the group's config, auto-creating a default one when on.
  caf::expected<subscription_group_config> find(const std::string& group);

  /// The file's document for the table.
  nlohmann::json to_document() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  /// Saves again after a failed save; true while it still fails.
  bool save_again();

private:
  void next_version();
  void save();
};

/// Spawns with `sys.spawn<caf::detached>(subscription_group_table, opts)`.
subscription_group_table_actor::behavior_type
subscription_group_table(subscription_group_table_actor::stateful_pointer<
                           subscription_group_table_state>
                           self,
                         subscription_group_table_options opts);

} // namespace rmq
