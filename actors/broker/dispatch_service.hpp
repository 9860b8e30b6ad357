// The dispatcher: builds consume queues and the index from the commit log
// (RocketMQ ReputMessageService + IndexService), checkpoints them every
// second, and serves every read, because it owns what reads need. Runs
// detached: it writes mapped files and fdatasyncs them at each checkpoint.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/replies_to.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/common.hpp"
#include "messages/store.hpp"
#include "messages/store_actors.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

struct dispatch_state {
  std::shared_ptr<storage::message_store> store;
  caf::timespan checkpoint_interval{0}; // zero: timer off
  int64_t checkpoints = 0;
  int64_t dispatch_requests = 0;
  int64_t log_min_offset = 0;
  std::string last_error;
  /// Told (arrival_atom, offset) after each dispatch that moved on.
  std::vector<arrival_listener_actor> listeners;
  /// Told the same only when their topic got messages.
  struct topic_listener {
    arrival_listener_actor hdl;
    std::string topic;
    int64_t seen = 0; // the topic's max-offset total when last told
  };
  std::vector<topic_listener> topic_listeners;
  /// Watches of single queues: told once the queue's max offset passes
  /// `above`.
  struct queue_watch {
    queue_watcher_actor hdl;
    int64_t above = 0;
    /// A watch with a read: its id, and the read made when it fires.
    int64_t id = -1;
    std::optional<get_message_request> read;
  };
  std::map<std::pair<std::string, int32_t>, std::vector<queue_watch>> watches;
  /// The watchers monitored (once each: they watch again and again).
  std::vector<caf::actor_addr> watchers;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

dispatcher_actor::behavior_type
dispatch_service(dispatcher_actor::stateful_pointer<dispatch_state> self,
                 std::shared_ptr<storage::message_store> store,
                 caf::timespan checkpoint_interval);

} // namespace rmq
