// The consumer offset table (RocketMQ ConsumerOffsetManager): the offset
// each consumer group committed per queue, "topic@group" -> queue -> offset,
// persisted atomically to config/consumerOffset.json every 5 s and when the
// actor exits. It runs on the shared scheduler, beside the pull processor
// whose every pull may commit an offset here; the file writes (an fsync
// each) go to a json_file_writer it spawns, detached in the node. The file
// is read once, when the table starts.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/pull.hpp"
#include "messages/common/json_file_writer.hpp"
#include "messages/store/store_actors.hpp"

namespace rmq {

struct consumer_offset_config {
  /// The table's file; empty: kept in memory only.
  std::string path;
  /// flushConsumerOffsetInterval; zero: no timer (exit and flush_atom only).
  caf::timespan flush_interval = std::chrono::seconds{5};
  /// How long a query waits for the queue service's queue offsets.
  caf::timespan request_timeout = std::chrono::seconds{10};
  /// Whether the file writer gets a thread of its own (the node); tests
  /// keep it on their deterministic scheduler.
  bool detach_writer = false;
};

/// "topic@group" -> queue id -> committed offset.
using consumer_offset_map = std::map<std::string, std::map<int32_t, int64_t>>;

/// Returns the file document for `table` (RocketMQ's layout:
/// `{"offsetTable": {"topic@group": {"0": 5}}}`).
nlohmann::json consumer_offsets_to_json(const consumer_offset_map& table);

/// Reads what consumer_offsets_to_json makes; corrupt_data on anything
/// else. Never throws.
caf::expected<consumer_offset_map>
consumer_offsets_from_json(const nlohmann::json& doc);

/// The same as file text.
std::string consumer_offsets_to_text(const consumer_offset_map& table);
caf::expected<consumer_offset_map>
consumer_offsets_from_text(const std::string& text);

struct consumer_offset_state {
  consumer_offset_config config;
  consumer_offset_map table;
  /// Writes the file (none without a path).
  json_file_writer_actor writer;
  bool dirty = false;
  /// A timer's write is on its way; the next tick waits for it.
  bool writing = false;
  int64_t updates = 0;
  /// Offsets a slave took from its master (moved forward).
  int64_t synced = 0;
  int64_t persists = 0;
  std::string last_error;
  /// Where a damaged file went at start ("" if none did).
  std::string corrupt_copy;
  /// The file could be neither read nor moved aside: nothing is persisted
  /// over it (json_file::load_config).
  caf::error blocked;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Loads the file (a corrupt one is moved aside to `path + ".corrupt.<n>"`,
/// a new name each time, and the table starts empty), then serves queries and updates. `queue service`
/// answers the queue offsets the QUERY_NOT_FOUND rule needs; without it an
/// unknown offset is always query_not_found.
consumer_offset_table_actor::behavior_type consumer_offset_table(
  consumer_offset_table_actor::stateful_pointer<consumer_offset_state> self,
  consumer_offset_config config, queue_service_actor queue_service);

} // namespace rmq
