// A client instance's request holder (RocketMQ RequestFutureHolder): the
// requests of every producer of the instance that wait for a reply, by
// correlation id, each with its deadline on the actor clock. One timer,
// armed for the earliest deadline, ends the waits that ran out with
// request_timeout (RocketMQ scans its table every second instead). The
// heartbeat actor, the channel brokers push replies to, forwards them
// here; a reply for no waiting request (it came after the timeout) is
// dropped with a log line. See docs/request-reply.md.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client_reply.hpp"

namespace rmq {

/// One request waiting for its reply.
struct waiting_request {
  caf::actor_clock::time_point deadline;
  caf::typed_response_promise<received_message> rp;
};

struct request_holder_state {
  /// By correlation id.
  std::map<std::string, waiting_request> waiting;
  /// When the timers on their way fire.
  std::multiset<caf::actor_clock::time_point> timers;
  // Counters for the dump.
  int64_t requests = 0;
  int64_t replied = 0;
  int64_t timed_out = 0;
  int64_t failed = 0;
  /// Replies that found no waiting request.
  int64_t dropped = 0;
  /// For the dump: how far the next deadline is.
  caf::actor_clock* clock = nullptr;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

request_holder_actor::behavior_type request_holder(
  request_holder_actor::stateful_pointer<request_holder_state> self);

} // namespace rmq
