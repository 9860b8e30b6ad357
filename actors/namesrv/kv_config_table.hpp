// The NameServer's KV config table (RocketMQ KVConfigManager): namespace ->
// key -> value, e.g. ORDER_TOPIC_CONFIG. Front actors send it the
// PUT/GET/DELETE_KV_CONFIG and GET_KVLIST_BY_NAMESPACE requests; it rewrites
// the whole table to its file after every change. It does blocking file
// I/O, so the node spawns it detached:
//   sys.spawn<caf::detached>(kv_config_table, path)
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/replies_to.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_actor.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/common.hpp"
#include "messages/namesrv.hpp"
#include "runtime/kv_config_file.hpp"

namespace rmq {

/// Forces a save of the table (graceful shutdown).
using save_atom = caf::atom_constant<caf::atom("save")>;

/// Messaging interface of the KV config table.
using kv_config_table_actor = dumpable_actor::extend<
  caf::replies_to<put_kv_config_request>::with<caf::ok_atom>,
  caf::replies_to<get_kv_config_request>::with<std::string>,
  caf::replies_to<delete_kv_config_request>::with<caf::ok_atom>,
  caf::replies_to<get_kv_list_by_namespace_request>::with<kv_table>,
  caf::replies_to<save_atom>::with<caf::ok_atom>>;

/// State and logic of the table, usable without an actor system.
struct kv_config_table_state {
  // -- member variables ------------------------------------------------------

  kv_config_map config_table;

  /// File of the table; empty: in memory only.
  std::string path;

  /// Set when the table has changes that are not on disk yet.
  bool dirty = false;

  /// Set when the file at start could be neither read nor moved aside:
  /// saving would overwrite data we never loaded, so every save fails.
  caf::error save_blocked;

  int64_t puts = 0;        ///< Accepted puts.
  int64_t deletes = 0;     ///< Deletes that removed a key.
  int64_t saves = 0;       ///< Successful file writes.
  int64_t save_errors = 0; ///< Failed file writes.

  /// What `self->name()` returns; also the "actor" field of dumps.
  static const char* name;

  // -- logic -----------------------------------------------------------------

  /// Sets `path` and loads the table from it. A corrupt file is logged,
  /// kept as `path + ".corrupt"` and the table starts empty (a NameServer
  /// must come up; the KV data is small and re-put by operators). A file
  /// that cannot be read or moved aside blocks saving instead. Never throws.
  void load(std::string file_path);

  /// Stores the value, then saves if anything is unsaved. Returns
  /// `invalid_parameter` for a bad namespace/key/value (table untouched) or
  /// `io_error` if the save failed; the change then stays in memory and is
  /// written by the next save (a retried put, any delete, or `save_atom`).
  caf::error put(const put_kv_config_request& x);

  /// Returns the value or `query_not_found`.
  caf::expected<std::string> get(const get_kv_config_request& x) const;

  /// Removes the key (and its namespace once empty); absent keys are fine.
  /// Saves if anything is unsaved; returns `io_error` if that fails.
  caf::error erase(const delete_kv_config_request& x);

  /// Returns all keys of the namespace or `query_not_found`.
  caf::expected<kv_table>
  list(const get_kv_list_by_namespace_request& x) const;

  /// Writes the table if it has a path and unsaved changes (or `force`).
  caf::error save(bool force = false);

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;
};

/// Spawns with `sys.spawn<caf::detached>(kv_config_table, path)`; an empty
/// path keeps the table in memory only.
kv_config_table_actor::behavior_type kv_config_table(
  kv_config_table_actor::stateful_pointer<kv_config_table_state> self,
  std::string path);

} // namespace rmq
