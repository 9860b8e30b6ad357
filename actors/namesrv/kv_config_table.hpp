// The NameServer's KV config table (RocketMQ KVConfigManager): namespace ->
// key -> value, e.g. ORDER_TOPIC_CONFIG. The front actor relays it the
// PUT/GET/DELETE_KV_CONFIG and GET_KVLIST_BY_NAMESPACE requests; it rewrites
// the whole table to its file after every change. It does blocking file
// I/O, so the node spawns it detached:
//   sys.spawn<caf::detached>(kv_config_table, path)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/replies_to.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_actor.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/common/common.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/namesrv/kv_config_file.hpp"

namespace rmq {

/// Largest KV table, counted as the bytes of every namespace, key and value
/// (a value alone may have `max_kv_value_size`): each change rewrites and
/// fsyncs the whole file, ~40 ms at this size on the dev box.
constexpr size_t default_max_kv_table_size = 4 * 1024 * 1024;

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

  /// Set between a change and its save (a failed save rolls the change
  /// back, so the table is what is on disk).
  bool dirty = false;

  /// A put that grows the table beyond this is refused.
  size_t max_table_size = default_max_kv_table_size;

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
  /// kept as `path + ".corrupt.<n>"`, the first such name not taken (every
  /// corrupt copy stays), and the table starts empty (a NameServer must come
  /// up; the KV data is small and re-put by operators). A file that cannot
  /// be read or moved aside blocks saving instead. Never throws.
  void load(std::string file_path);

  /// Stores the value and saves. Returns `invalid_parameter` for a bad
  /// namespace/key/value, a value over `max_kv_value_size` or a table that
  /// would grow over `max_table_size` (table untouched), or `io_error` if
  /// the save failed: the change is then rolled back, so reads answer what
  /// is on disk.
  caf::error put(const put_kv_config_request& x);

  /// Returns the value or `query_not_found`.
  caf::expected<std::string> get(const get_kv_config_request& x) const;

  /// Removes the key (and its namespace once empty); absent keys are fine.
  /// Saves; returns `io_error` if that fails, with the key put back.
  caf::error erase(const delete_kv_config_request& x);

  /// Returns all keys of the namespace or `query_not_found`.
  caf::expected<kv_table> list(const get_kv_list_by_namespace_request& x) const;

  /// Writes the table if it has a path and unsaved changes (or `force`).
  caf::error save(bool force = false);

  /// Bytes of every namespace, key and value (the measure of
  /// `max_table_size`).
  size_t table_size() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;
};

/// Spawns with `sys.spawn<caf::detached>(kv_config_table, path)`; an empty
/// path keeps the table in memory only.
kv_config_table_actor::behavior_type kv_config_table(
  kv_config_table_actor::stateful_pointer<kv_config_table_state> self,
  std::string path);

} // namespace rmq
