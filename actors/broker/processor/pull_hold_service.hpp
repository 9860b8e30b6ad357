// The long-polling hold service (RocketMQ PullRequestHoldService): parks
// pulls that found nothing, keyed by topic@queue, and answers each one
// once, without suspension, through the pull processor when a message for
// it arrives or when its suspend timeout ends. The queue service watches each
// queue for the pull parked at its lowest offset and, when the queue
// moves, sends that pull's read with the note; the queue's other pulls
// are re-executed through the processor. Keeps no files.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/duration.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/broker/pull.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/timer_set.hpp"

namespace rmq {

/// One parked pull.
struct held_pull {
  pull_message_request req;
  /// The processor's read for it (clamped counts, the subscription's tag
  /// codes, empty for every tag): the queue service repeats it when the
  /// queue moves.
  get_message_request read;
  pull_processor_actor processor;
  caf::typed_response_promise<pull_message_result> rp;
  int64_t deadline_ns = 0;    // on the actor clock
  int64_t checked_offset = 0; // no matching message before this offset
  bool checking = false;      // a tags check is in flight
};

struct pull_hold_state {
  queue_service_actor queue_service;
  /// For its re-executed pulls and tag checks; none by default: both
  /// actors answer by themselves (a dead one answers
  /// request_receiver_down), and a CAF request timeout costs the clock
  /// thread two wake-ups per request.
  caf::duration request_timeout = caf::infinite;
  /// "topic@queue" -> id -> parked pull.
  std::map<std::string, std::map<int64_t, held_pull>> held;
  /// Deadlines with a timer on the way: one for the earliest parked pull.
  timer_set<int64_t> armed;
  int64_t next_id = 0;
  int64_t suspended = 0;
  int64_t woken_on_arrival = 0;
  /// Of those, answered from the queue service's read (no read of their own).
  int64_t woken_with_read = 0;
  int64_t expired = 0;
  int64_t arrivals = 0;

  /// Returns how many pulls are parked.
  size_t held_count() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Spawned by the broker node; it watches the queues of its parked pulls
/// at `queue service` (`watch_atom`), which also answers the reads that decide
/// whether a new message is one a parked pull waits for.
pull_hold_service_actor::behavior_type pull_hold_service(
  pull_hold_service_actor::stateful_pointer<pull_hold_state> self,
  queue_service_actor queue_service, caf::duration request_timeout);

} // namespace rmq
