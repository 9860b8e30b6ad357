// The baseline of rmq-bench: a minimal CAF request/response actor that a
// node registers under `bench_echo_name` in its actor registry, so that a
// bench can reach it with middleman::remote_lookup over the connection it
// already has to the node's published actor. Both sides then measure the
// same two processes, the same BASP connection and the same schedulers;
// only the node's own work differs.
#pragma once

#include <cstdint>
#include <string>

#include "caf/actor.hpp"
#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/atom.hpp"
#include "caf/behavior.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

namespace rmq {

/// Tags the echo's requests.
using bench_echo_atom = caf::atom_constant<caf::atom("bnchecho")>;

/// The registry name of the echo actor.
constexpr caf::atom_value bench_echo_name = caf::atom("rmq_echo");

/// Spawns the echo actor and registers it. It answers
/// `(bench_echo_atom, std::string)` with the string's size, and
/// `(bench_echo_atom, std::string, uint64_t n)` with `n` bytes (a reply
/// shaped like a pull's). Call `stop_bench_echo` before the system ends.
inline caf::actor spawn_bench_echo(caf::actor_system& sys) {
  auto echo = sys.spawn([]() -> caf::behavior {
    return {
      [](bench_echo_atom, const std::string& in) {
        return static_cast<uint64_t>(in.size());
      },
      [](bench_echo_atom, const std::string&, uint64_t n) {
        return std::string(static_cast<size_t>(n), 'x');
      },
    };
  });
  sys.registry().put(bench_echo_name,
                     caf::actor_cast<caf::strong_actor_ptr>(echo));
  return echo;
}

/// Unregisters and stops the echo actor.
inline void stop_bench_echo(caf::actor_system& sys, const caf::actor& echo) {
  sys.registry().erase(bench_echo_name);
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
}

} // namespace rmq
