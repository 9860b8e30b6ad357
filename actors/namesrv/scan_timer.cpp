#include "actors/namesrv/scan_timer.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "runtime/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* scan_timer_state::name = "scan_timer";

scan_timer_actor::behavior_type
scan_timer(scan_timer_actor::stateful_pointer<scan_timer_state> self,
           caf::timespan interval, broker_live_table_actor live,
           unregistration_batcher_actor batcher) {
  auto& st = self->state;
  st.interval = interval;
  st.live = std::move(live);
  st.batcher = std::move(batcher);
  // Every arm starts a new generation, so an interval change drops the
  // tick armed under the old one and exactly one tick stays armed.
  auto arm = [self] {
    auto gen = ++self->state.generation;
    if (self->state.interval.count() > 0)
      self->delayed_send(self, self->state.interval, caf::tick_atom::value,
                         gen);
  };
  arm();
  return {
    [=](caf::tick_atom) {
      ++self->state.scans;
      self->request(self->state.live, std::chrono::seconds{10},
                    scan_atom::value)
        .then([=](const std::vector<unregistration>& expired) {
          if (expired.empty())
            return;
          self->state.expired += expired.size();
          for (auto& x : expired)
            RMQ_WARN("namesrv", "broker " << x.request.broker_addr
                                          << " expired (no heartbeat)");
          self->send(self->state.batcher, expired);
        });
      arm();
    },
    [=](caf::tick_atom, uint64_t gen) {
      if (gen == self->state.generation)
        self->send(self, caf::tick_atom::value);
    },
    [=](caf::put_atom, caf::timespan new_interval) {
      self->state.interval = new_interval;
      arm();
      return caf::ok_atom::value;
    },
    dump_handler(self),
  };
}

nlohmann::json scan_timer_state::dump_fields() const {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(interval);
  return {{"scan_interval_ms", ms.count()},
          {"scans", scans},
          {"expired", expired}};
}

} // namespace rmq
