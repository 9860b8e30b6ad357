// The closed-loop load generator every rmq-bench subcommand that talks to a
// node uses: keeps N requests in flight from one event-based actor for a
// given time, counts messages, records each request's latency, and prints
// a progress line every second.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/actor_system.hpp"
#include "caf/event_based_actor.hpp"

namespace rmq::bench {

using clock_type = std::chrono::steady_clock;

double us_since(clock_type::time_point t0, clock_type::time_point t1);

struct load_result {
  uint64_t requests = 0;
  uint64_t msgs = 0;
  uint64_t errors = 0;
  std::string first_error;
  double seconds = 0;
  /// Every successful request's latency, sorted.
  std::vector<double> latencies_us;
  double rate() const {
    return seconds > 0 ? static_cast<double>(msgs) / seconds : 0;
  }
  double p(double q) const;
};

/// Prints a run's error count and first error, if it had any.
void note_errors(const std::string& what, const load_result& r);

/// Calls `done(ok, messages, why)` once the request ended.
using done_fn = std::function<void(bool, uint64_t, const std::string&)>;

/// Issues request number `seq` from `self`.
using issue_fn
  = std::function<void(caf::event_based_actor*, uint64_t, done_fn)>;

/// Keeps `in_flight` requests going for `seconds`; a run with no reply for
/// 10 s ends as stalled. Requests should carry no CAF timeout (a CAF 0.17
/// request timeout wakes the clock thread twice per request).
load_result run_load(caf::actor_system& sys, const std::string& label,
                     int in_flight, double seconds, issue_fn issue);

/// Sends message number `tag` from `self` as a tagged async send, whose
/// answer comes back one-way: (async_atom, tag, client_send_result) or
/// (async_atom, tag, error).
using tagged_fn = std::function<void(caf::event_based_actor*, uint64_t)>;

/// `run_load` for tagged sends: the generator keeps no request pending per
/// message (CAF 0.17 scans and shifts its flat map of pending requests on
/// every answer, a tenth of the bench's time with 1,024 in flight).
load_result run_tagged_load(caf::actor_system& sys, const std::string& label,
                            int in_flight, double seconds, tagged_fn send);

/// The baseline request: `payload` to the bench echo actor
/// (actors/common/bench_echo.hpp), answered with its size, or with
/// `reply_bytes` bytes when that is not 0; counts `msgs_per_request`.
issue_fn echo_request(const caf::actor& echo, std::string payload,
                      uint64_t msgs_per_request, uint64_t reply_bytes = 0);

} // namespace rmq::bench
