// A broadcasting consumer's offsets, kept in a local file because every
// member consumes every queue on its own (RocketMQ LocalFileOffsetStore):
// `<dir>/<clientId>/<group>/offsets.json`, dir ~/.rocketmq_offsets by
// default. Plain C++ with file I/O: only an actor the node spawns detached
// may call load and persist.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "messages/client/client.hpp"

namespace rmq {

/// Queue -> next offset to consume.
using local_offset_map = std::map<message_queue, int64_t>;

/// ~/.rocketmq_offsets (RocketMQ rocketmq.client.localOffsetStoreDir).
std::string default_local_offset_dir();

/// `<dir>/<client_id>/<group>/offsets.json`.
std::string local_offset_path(const std::string& dir,
                              const std::string& client_id,
                              const std::string& group);

namespace local_offset_file {

/// Which file `load` read.
enum class source {
  none, ///< neither file exists
  main, ///< offsets.json
  bak,  ///< offsets.json.bak: the main file was missing or damaged
};

struct loaded {
  local_offset_map offsets;
  source from = source::none;
  /// Why the main file could not be used (empty when it was read or does
  /// not exist).
  std::string main_error;
};

/// Reads `path`; a missing, empty or damaged one falls back to
/// `path + ".bak"` (RocketMQ readLocalOffset), a damaged main file being
/// moved aside first (json_file::keep_aside) so that no later save hides
/// it. Both missing: empty. Errors: the .bak's (corrupt_data, io_error)
/// when it is needed and damaged too.
caf::expected<loaded> load(const std::string& path);

/// Writes `offsets` to `path` atomically, after copying the file it
/// replaces to `path + ".bak"` (when that one loads), as RocketMQ's
/// MixAll.string2File keeps the previous version.
caf::error save(const std::string& path, const local_offset_map& offsets);

/// {"offset_table":[{"topic":..,"broker_name":..,"queue_id":..,
/// "offset":..}, ...]}.
nlohmann::json to_json(const local_offset_map& offsets);
caf::expected<local_offset_map> from_json(const nlohmann::json& doc);

} // namespace local_offset_file

/// The in-memory table and its file (RocketMQ LocalFileOffsetStore).
class local_offset_store {
public:
  explicit local_offset_store(std::string path) : path_(std::move(path)) {
  }

  const std::string& path() const {
    return path_;
  }

  /// Replaces the table with the file's (load above).
  caf::error load();

  /// Sets a queue's offset; with `increase_only` a smaller one is ignored.
  void update(const message_queue& queue, int64_t offset,
              bool increase_only = false);

  /// The queue's offset in memory, or nullopt (RocketMQ -1).
  std::optional<int64_t> read(const message_queue& queue) const;

  /// The queue's offset in the file (updating memory), or nullopt
  /// (RocketMQ READ_FROM_STORE).
  caf::expected<std::optional<int64_t>>
  read_from_file(const message_queue& queue);

  /// Forgets a queue no longer consumed (the file keeps its entry).
  void remove(const message_queue& queue);

  /// Writes the offsets of `queues` into the file, keeping the file's
  /// other entries (RocketMQ persistAll).
  caf::error persist(const std::vector<message_queue>& queues);

  /// The table, or the part of it for `topic` when not empty.
  local_offset_map offsets(const std::string& topic = {}) const;

private:
  std::string path_;
  local_offset_map table_;
};

} // namespace rmq
