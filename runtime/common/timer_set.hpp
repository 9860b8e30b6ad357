// The actor timers one actor keeps for the deadlines of many waits (sends
// in flight, pulls in flight, parked pulls). A timer is armed only when no
// armed one fires at or before the new deadline: deadlines that only grow
// (now + a fixed timeout) then cost one timer in all, not one per wait.
// Every CAF 0.17 timer or request timeout wakes the clock thread (twice for
// a request timeout), which per message is a large part of a light load's
// CPU on this VM (docs/benchmarks.md). When a timer fires the actor looks
// at all its deadlines and arms again for the earliest left.
#pragma once

#include <cstddef>
#include <set>

namespace rmq {

template <class TimePoint>
class timer_set {
public:
  /// Returns whether a timer must be armed for `at` (and records it): no
  /// armed timer fires at or before it.
  bool arm(TimePoint at) {
    if (!armed_.empty() && *armed_.begin() <= at)
      return false;
    armed_.insert(at);
    return true;
  }

  /// A timer fired at `now`: forgets every timer due by then.
  void fired(TimePoint now) {
    armed_.erase(armed_.begin(), armed_.upper_bound(now));
  }

  /// Timers armed and not fired yet.
  size_t size() const {
    return armed_.size();
  }

private:
  std::multiset<TimePoint> armed_;
};

} // namespace rmq
