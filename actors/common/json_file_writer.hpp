// Writes one table's JSON file for the table's actor, so that the table can
// run on the shared scheduler while the write and its fsyncs block a
// thread of their own (spawned detached in the node). Writes go in the
// order they arrive, so the last one asked is the one on disk. It quits
// once its owner is down and every write asked before is done: the owner's
// last write, sent as it exits, still lands.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/common/json_file_writer.hpp"

namespace rmq {

struct json_file_writer_state {
  std::string path;
  int64_t writes = 0;
  int64_t failures = 0;
  size_t last_bytes = 0;
  std::string last_error;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Writes `path` for `owner` until `owner` is down.
json_file_writer_actor::behavior_type json_file_writer(
  json_file_writer_actor::stateful_pointer<json_file_writer_state> self,
  std::string path, caf::actor owner);

} // namespace rmq
