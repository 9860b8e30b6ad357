// The timer service (RocketMQ 5 TimerMessageStore): its progress, its
// interface, and the read of a queue's units it enqueues from (the
// queue service answers it: the timer topic's tags code is the slot, so no
// record is read to enqueue). Implemented in actors/broker/delayed/timer_service.*;
// see docs/timer.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/store/store.hpp"

namespace rmq {

/// Reads consume-queue units (not records) of one queue from `offset`.
struct queue_units_request {
  std::string topic;
  int32_t queue_id = 0;
  int64_t offset = 0;
  int32_t max_count = 256;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_units_request& x) {
  return f(caf::meta::type_name("rmq.queue_units_request"), x.topic, x.queue_id,
           x.offset, x.max_count);
}

RMQ_DECLARE_MESSAGE(queue_units_request);

/// One consume-queue unit.
struct queue_unit {
  int64_t queue_offset = 0;
  int64_t phys_offset = 0;
  int32_t size = 0;
  int64_t tags_code = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_unit& x) {
  return f(caf::meta::type_name("rmq.queue_unit"), x.queue_offset,
           x.phys_offset, x.size, x.tags_code);
}

RMQ_DECLARE_MESSAGE(queue_unit);

/// Units from the asked offset (or the queue's minimum, when retention
/// deleted the asked ones), in order; blank units are left out.
struct queue_units {
  int64_t min_offset = 0;
  int64_t max_offset = 0;
  std::vector<queue_unit> units;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_units& x) {
  return f(caf::meta::type_name("rmq.queue_units"), x.min_offset, x.max_offset,
           x.units);
}

RMQ_DECLARE_MESSAGE(queue_units);

/// Where the timer stands (RocketMQ brokerStatus: timerReadBehind,
/// timerOffsetBehind, timerCongestNum).
struct timer_progress {
  /// Timers in the wheel, not fired yet (timerCongestNum).
  int64_t pending = 0;
  /// The earliest slot with timers (wall ms), -1 if none.
  int64_t next_due_ms = -1;
  /// The next slot to fire (wall ms).
  int64_t read_ms = 0;
  /// How late the earliest pending timer is: now - next_due_ms when it is
  /// due, else 0 (timerReadBehind, in ms here).
  int64_t dequeue_lag_ms = 0;
  /// The next timer-topic queue offset to enqueue.
  int64_t enqueue_offset = 0;
  /// Timer-topic messages not in the wheel yet (timerOffsetBehind).
  int64_t enqueue_behind = 0;
  /// Messages delivered to their real topic since the start.
  int64_t delivered = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, timer_progress& x) {
  return f(caf::meta::type_name("rmq.timer_progress"), x.pending, x.next_due_ms,
           x.read_ms, x.dequeue_lag_ms, x.enqueue_offset, x.enqueue_behind,
           x.delivered);
}

RMQ_DECLARE_MESSAGE(timer_progress);

/// Interface of the timer service.
using timer_service_actor = dumpable_actor::extend<
  // Its progress (for brokerStatus).
  caf::replies_to<caf::get_atom>::with<timer_progress>,
  // The queue service's arrival notes for the timer topic.
  caf::reacts_to<arrival_atom, int64_t>,
  // A slave's service takes where its master's wheel reads (read_ms; only
  // forward): it fires nothing while a slave and passes the slots its
  // master fired.
  caf::reacts_to<sync_atom, timer_progress>,
  // Its own wake-ups: (kind, generation); kind 0 is the look after
  // arrival notes, 1 the firing of the next due slot.
  caf::reacts_to<tick_atom, int32_t, uint64_t>>;

} // namespace rmq
