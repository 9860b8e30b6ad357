// The typed interfaces of the message store's actors. They live here, not
// beside the actors, so that runtime/ can register the handles as message
// types without including actors/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/replication.hpp"
#include "messages/broker/timer.hpp"
#include "messages/common/common.hpp"
#include "messages/store/store.hpp"

namespace rmq {

using flush_service_actor = dumpable_actor::extend<
  // Flushes up to an offset; answers the flushed offset or the I/O error.
  caf::replies_to<flush_atom, int64_t>::with<int64_t>>;

/// The warm actor: a tick asks it to write zeros ahead of the commit-log
/// writer until enough is warm (sync flush; the writer keeps one tick in
/// flight, see `commit_log::claim_warm`).
using warm_service_actor = dumpable_actor::extend<caf::reacts_to<tick_atom>>;

/// What the queue service's listeners accept: after each dispatch that moved
/// the queues on, the commit-log offset they reach now.
using arrival_listener_actor
  = caf::typed_actor<caf::reacts_to<arrival_atom, int64_t>>;

/// Asks the queue service to tell a watcher when a queue got a message.
using watch_atom = caf::atom_constant<caf::atom("watch")>;

/// What a queue watcher accepts: queue (topic, queue id) has messages up
/// to this max offset now; and the same with the read the watch asked for
/// (its id, and what the queue service read for it when the queue moved).
using queue_watcher_actor = caf::typed_actor<
  caf::reacts_to<arrival_atom, std::string, int32_t, int64_t>,
  caf::reacts_to<arrival_atom, std::string, int32_t, int64_t, int64_t,
                 get_message_result>>;

using queue_service_actor = dumpable_actor::extend<
  // New records up to an offset are in the commit log; answers how far the
  // queues now reach (for callers that wait for a dispatch).
  caf::replies_to<dispatch_atom, int64_t>::with<int64_t>,
  // The writer's one-way note (message_store::claim_dispatch_note):
  // dispatches up to the dispatchable offset, answers nothing, so a send
  // costs the writer's thread no wake-up for the dispatch's end.
  caf::reacts_to<dispatch_atom>,
  // Checkpoint timer.
  caf::reacts_to<tick_atom>,
  // Flush queues and index, write the checkpoint now.
  caf::replies_to<checkpoint_atom>::with<int64_t>,
  // Finish the checkpoint the store has prepared (the fdatasyncs and the
  // checkpoint file, message_store::finish_checkpoint): the helper's job,
  // while the queue service goes on dispatching.
  caf::replies_to<checkpoint_atom, flush_atom>::with<int64_t>,
  caf::replies_to<get_message_request>::with<get_message_result>,
  caf::replies_to<get_offset_request>::with<queue_offsets>,
  caf::replies_to<search_offset_request>::with<int64_t>,
  // The raw record at a commit-log offset.
  caf::replies_to<caf::get_atom, int64_t>::with<std::string>,
  caf::replies_to<query_message_request>::with<query_message_result>,
  // Adds a listener (monitored, dropped when it exits) that gets
  // (arrival_atom, dispatched offset) after each dispatch that moved the
  // queues on: the long-polling hold service.
  caf::reacts_to<caf::subscribe_atom, arrival_listener_actor>,
  // The same for one topic only: the listener hears of dispatches that
  // added messages to that topic (the schedule service, which has its own
  // thread, is not woken by every send).
  caf::reacts_to<caf::subscribe_atom, arrival_listener_actor, std::string>,
  // Once queue (topic, queue id) has a message at `offset` or later (its
  // max offset is above it), tells the watcher (monitored) one note
  // (arrival_atom, topic, queue id, max offset): the long-polling hold
  // service, which so learns which queue moved without asking. A new
  // watch of the same watcher and queue replaces the old one.
  caf::reacts_to<watch_atom, queue_watcher_actor, std::string, int32_t,
                 int64_t>,
  // The same for the queue and offset of `read`, but the note carries
  // `id` and the result of `read`, done on the queue service's thread when
  // the queue moves: the hold service answers a parked pull without a
  // read request of its own (two thread hops less per wake-up).
  caf::reacts_to<watch_atom, queue_watcher_actor, int64_t, get_message_request>,
  // Consume-queue units without their records (the timer service).
  caf::replies_to<queue_units_request>::with<queue_units>,
  // Removes a deleted topic's consume queues (DELETE_TOPIC_IN_BROKER);
  // answers how many it removed.
  caf::replies_to<caf::delete_atom, std::string>::with<int64_t>,
  // Rebuilds from the commit log the consume queues whose units a read
  // found naming no record of their own; answers how many it rebuilt.
  caf::replies_to<repair_atom>::with<int64_t>>;

using commit_log_writer_actor = dumpable_actor::extend<
  // Appends a batch; one result per message, or an error for the whole
  // batch (system_busy, a failed flush).
  caf::replies_to<caf::put_atom,
                  std::vector<store_message>>::with<std::vector<put_result>>,
  // A slave appends its master's chunk (message_store::append_replica);
  // answers the new write offset.
  caf::replies_to<replica_atom, replica_chunk>::with<int64_t>,
  // A slave's check of its log against a new master's terms (see
  // reconcile_atom); answers the offset to copy from.
  caf::replies_to<reconcile_atom, replica_chunk>::with<int64_t>,
  // The master's replication service, told whenever the log grows.
  caf::reacts_to<caf::subscribe_atom, ha_service_actor>,
  // How far a slave has the log (SYNC_MASTER's acknowledgements).
  caf::reacts_to<replicated_atom, int64_t>,
  // Flush and housekeeping timer.
  caf::reacts_to<tick_atom>>;

} // namespace rmq
