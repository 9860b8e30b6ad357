#include "apps/rmq-bench/ha_lag.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "caf/scoped_actor.hpp"

#include "apps/rmq-bench/ha_probe.hpp"

namespace rmq::bench {

std::vector<lag_sample> sample_lag(caf::actor_system& sys,
                                   const broker_actor& master,
                                   std::chrono::milliseconds interval,
                                   const std::function<void()>& during) {
  std::vector<lag_sample> samples;
  std::atomic<bool> stop{false};
  // A blocking actor on a thread of its own: the scheduler's threads stay
  // with the load generator.
  std::thread sampler{[&] {
    caf::scoped_actor self{sys};
    auto next = clock_type::now();
    while (!stop.load()) {
      auto t0 = clock_type::now();
      auto st = read_ha_state(self, master, std::chrono::seconds{5});
      auto t1 = clock_type::now();
      if (st.ok && st.master_offset >= 0 && st.acked_offset >= 0)
        samples.push_back(
          {t0, st.master_offset, st.acked_offset, us_since(t0, t1)});
      next += interval;
      if (next > t1)
        std::this_thread::sleep_until(next);
      else
        next = t1;
    }
  }};
  during();
  stop = true;
  sampler.join();
  return samples;
}

std::vector<double> lag_ms(const std::vector<lag_sample>& samples,
                           size_t* unknown) {
  std::vector<double> out;
  size_t skipped = 0;
  auto ms = [](clock_type::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  for (size_t i = 0; i < samples.size(); ++i) {
    auto& s = samples[i];
    if (s.acked >= s.master_end) {
      out.push_back(0);
      continue;
    }
    // The master's end only grows: the first sample at or past the
    // acknowledged offset, among those up to this one.
    auto end = samples.begin() + static_cast<std::ptrdiff_t>(i) + 1;
    auto j = std::lower_bound(samples.begin(), end, s.acked,
                              [](const lag_sample& x, int64_t offset) {
                                return x.master_end < offset;
                              });
    if (j == samples.begin() && j->master_end > s.acked) {
      ++skipped;
      continue;
    }
    auto reached = j->at;
    if (j != samples.begin()) {
      // Between the sample before (end below the offset) and this one.
      auto& p = *(j - 1);
      auto part = static_cast<double>(s.acked - p.master_end)
                  / static_cast<double>(j->master_end - p.master_end);
      reached = p.at
                + std::chrono::duration_cast<clock_type::duration>(
                  (j->at - p.at) * part);
    }
    out.push_back(ms(s.at - reached));
  }
  std::sort(out.begin(), out.end());
  if (unknown != nullptr)
    *unknown = skipped;
  return out;
}

} // namespace rmq::bench
