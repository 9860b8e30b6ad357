// The queue service: builds consume queues and the index from the commit log
// (RocketMQ ReputMessageService + IndexService), checkpoints them every
// second, and serves every read, because it owns what reads need.
//
// In the node it runs on the shared scheduler, beside the writer, so a
// send's dispatch note and a pull's read cross no thread. What may block
// goes to its helper, a second instance without a helper of its own that
// runs detached: dispatching a record that needs a new consume-queue or
// index file, the checkpoint's fdatasyncs, reads of records not likely in
// memory, lookups by offset, time and key, and topic deletion. While the
// helper works (it holds the store's reader lock), everything else that
// touches the store goes to it too, in order, so this thread never waits
// for that lock. Without a helper (the tests' attached actors) it does all
// of it itself.
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
#include "caf/typed_response_promise.hpp"

#include "actors/common/network_actor.hpp"
#include "messages/common/common.hpp"
#include "messages/store/store.hpp"
#include "messages/store/store_actors.hpp"
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
  /// Does what may block; none: do it here.
  queue_service_actor helper;
  /// Requests to the helper not answered yet.
  int helper_busy = 0;
  /// A checkpoint prepared here is being finished by the helper.
  bool finishing_checkpoint = false;
  /// Dispatch wanted up to here while the helper was busy; -1: none.
  int64_t pending_dispatch = -1;
  /// Waiting (dispatch_atom, up_to) requests, answered once dispatched.
  std::vector<std::pair<int64_t, caf::typed_response_promise<int64_t>>>
    dispatch_waiters;
  /// Dispatched offset the listeners were last told of.
  int64_t announced = 0;
  /// A watch was added while the helper was busy: check at its end.
  bool check_watches = false;
  int64_t helper_dispatches = 0;
  int64_t helper_requests = 0;
  /// The watchers monitored (once each: they watch again and again).
  std::vector<caf::actor_addr> watchers;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// `helper`: a queue service of the same store that may block (linked to
/// this one), or none.
queue_service_actor::behavior_type
queue_service(network_pointer<queue_service_actor, dispatch_state> self,
              std::shared_ptr<storage::message_store> store,
              caf::timespan checkpoint_interval, queue_service_actor helper);

} // namespace rmq
