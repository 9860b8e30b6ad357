// Counts events per second of a monotonic clock over the last ten minutes,
// for the rates an admin sees (RocketMQ's putTps "10 s, 1 min, 10 min").
// Lazy: no timer, buckets are cleared when time moves past them, so an
// actor can keep one for the price of a clock read per event.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace rmq {

class rate_meter {
public:
  static constexpr int64_t seconds = 600;

  /// Adds `n` events at `now` (any steady clock, as a duration since its
  /// epoch).
  void add(std::chrono::nanoseconds now, int64_t n = 1) {
    advance(to_second(now));
    buckets_[static_cast<size_t>(current_ % seconds)] += n;
    total_ += n;
  }

  /// Events per second over the `window` seconds before `now`, not
  /// counting the running second (so a rate does not dip as a second
  /// starts). `window` is clamped to 1..seconds - 1.
  double rate(std::chrono::nanoseconds now, int64_t window) const {
    auto second = to_second(now);
    if (window < 1)
      window = 1;
    if (window > seconds - 1)
      window = seconds - 1;
    int64_t sum = 0;
    // Slots of seconds after current_ were not written yet; slots more
    // than `seconds` before it were reused.
    for (int64_t s = second - window; s < second; ++s)
      if (first_ >= 0 && s >= first_ && s <= current_ && s > current_ - seconds)
        sum += buckets_[static_cast<size_t>(s % seconds)];
    return static_cast<double>(sum) / static_cast<double>(window);
  }

  /// Every event counted so far.
  int64_t total() const {
    return total_;
  }

private:
  static int64_t to_second(std::chrono::nanoseconds now) {
    return std::chrono::duration_cast<std::chrono::seconds>(now).count();
  }

  void advance(int64_t second) {
    if (first_ < 0) {
      first_ = current_ = second;
      return;
    }
    if (second <= current_)
      return;
    // Clears the buckets the clock moved past (at most all of them).
    for (int64_t s = current_ + 1; s <= second && s <= current_ + seconds; ++s)
      buckets_[static_cast<size_t>(s % seconds)] = 0;
    current_ = second;
  }

  std::array<int64_t, seconds> buckets_{};
  int64_t first_ = -1; // first second seen; earlier seconds count as empty
  int64_t current_ = 0;
  int64_t total_ = 0;
};

} // namespace rmq
