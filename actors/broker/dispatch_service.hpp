// The dispatcher: builds consume queues and the index from the commit log
// (RocketMQ ReputMessageService + IndexService), checkpoints them every
// second, and serves every read, because it owns what reads need. Runs
// detached: it writes mapped files and fdatasyncs them at each checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "caf/replies_to.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/common.hpp"
#include "messages/store.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

using dispatcher_actor = dumpable_actor::extend<
  // New records up to an offset are in the commit log; answers how far the
  // queues now reach (the writer keeps one such request in flight).
  caf::replies_to<dispatch_atom, int64_t>::with<int64_t>,
  // Checkpoint timer.
  caf::reacts_to<tick_atom>,
  // Flush queues and index, write the checkpoint now.
  caf::replies_to<checkpoint_atom>::with<int64_t>,
  caf::replies_to<get_message_request>::with<get_message_result>,
  caf::replies_to<get_offset_request>::with<queue_offsets>,
  caf::replies_to<search_offset_request>::with<int64_t>,
  // The raw record at a commit-log offset.
  caf::replies_to<caf::get_atom, int64_t>::with<std::string>,
  caf::replies_to<query_message_request>::with<query_message_result>>;

struct dispatch_state {
  std::shared_ptr<storage::message_store> store;
  caf::timespan checkpoint_interval{0}; // zero: timer off
  int64_t checkpoints = 0;
  int64_t dispatch_requests = 0;
  int64_t log_min_offset = 0;
  std::string last_error;
  bool stopped = false;

  static const char* name;
};

dispatcher_actor::behavior_type
dispatch_service(dispatcher_actor::stateful_pointer<dispatch_state> self,
                 std::shared_ptr<storage::message_store> store,
                 caf::timespan checkpoint_interval);

} // namespace rmq
