// The wall clock: milliseconds since the epoch, for the times a node shares
// with the outside world (store and born timestamps, delay and timer due
// times, data versions). Timers use the actor clock instead; it has no
// epoch. Every actor and table that needs the wall clock takes a
// `wall_clock` in its options: the system clock unless a test sets a
// function derived from the virtual clock.
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace rmq {

/// Milliseconds since the epoch by the system clock.
int64_t system_clock_ms();

/// A wall clock: the system clock, or the function it was given.
class wall_clock {
public:
  wall_clock() = default;

  template <class F,
            class = std::enable_if_t<
              std::is_invocable_r_v<
                int64_t, F&> && !std::is_same_v<std::decay_t<F>, wall_clock>>>
  wall_clock(F f) : fn_(std::move(f)) {
    // implicit: `options.wall_clock = [&] { return ms; };`
  }

  int64_t now_ms() const {
    return fn_ ? fn_() : system_clock_ms();
  }

private:
  std::function<int64_t()> fn_;
};

} // namespace rmq
