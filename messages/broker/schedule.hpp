// The delay-level schedule service (RocketMQ ScheduleMessageService): its
// per-level progress and its interface. Implemented in
// actors/broker/delayed/schedule_service.*; see docs/broker.md, "Schedule service".
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/store/store.hpp"

namespace rmq {

/// One delay level's progress through its queue of SCHEDULE_TOPIC_XXXX
/// (RocketMQ's brokerStatus `scheduleMessageOffset_<level>`: offset, max).
struct schedule_level_progress {
  /// 1-based; the queue is level - 1.
  int32_t level = 0;
  int64_t delay_ms = 0;
  /// The next queue offset to deliver (what delayOffset.json keeps).
  int64_t offset = 0;
  /// The queue's max offset as last read.
  int64_t max_offset = 0;
  /// Messages delivered to their real topic since the service started.
  int64_t delivered = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, schedule_level_progress& x) {
  return f(caf::meta::type_name("rmq.schedule_level_progress"), x.level,
           x.delay_ms, x.offset, x.max_offset, x.delivered);
}

RMQ_DECLARE_MESSAGE(schedule_level_progress);

/// Every level's progress, level 1 first.
struct schedule_progress {
  std::vector<schedule_level_progress> levels;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, schedule_progress& x) {
  return f(caf::meta::type_name("rmq.schedule_progress"), x.levels);
}

RMQ_DECLARE_MESSAGE(schedule_progress);

/// Interface of the schedule service.
using schedule_service_actor = dumpable_actor::extend<
  // Per-level progress (for brokerStatus).
  caf::replies_to<caf::get_atom>::with<schedule_progress>,
  // The queue service's arrival notes (it is subscribed as an
  // arrival_listener_actor): new schedule messages may be there.
  caf::reacts_to<arrival_atom, int64_t>,
  // A slave's service takes its master's level offsets (only forward);
  // it delivers nothing while a slave.
  caf::reacts_to<sync_atom, schedule_progress>,
  // Its own wake-ups: (level, timer generation); level 0 is the look
  // after arrival notes.
  caf::reacts_to<tick_atom, int32_t, uint64_t>>;

} // namespace rmq
