#include "actors/namesrv/scan_timer.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* scan_timer_state::name = "scan_timer";

namespace {

using self_ptr = scan_timer_actor::stateful_pointer<scan_timer_state>;

void scan(self_ptr self) {
  auto& st = self->state;
  if (st.scan_in_flight) {
    RMQ_WARN("namesrv", "liveness scan skipped: the previous one is still "
                        "unanswered");
    return;
  }
  ++st.scans;
  st.scan_in_flight = true;
  self->request(st.live, scan_timeout, scan_atom::value)
    .then(
      [=](const std::vector<unregistration>& expired) {
        auto& st = self->state;
        st.scan_in_flight = false;
        if (expired.empty())
          return;
        st.expired += expired.size();
        for (auto& x : expired)
          RMQ_WARN("namesrv", "broker " << x.request.broker_addr
                                        << " expired (no heartbeat)");
        self->send(st.batcher, expired);
      },
      [=](const caf::error& err) {
        auto& st = self->state;
        st.scan_in_flight = false;
        ++st.failed_scans;
        RMQ_ERROR("namesrv", "liveness scan failed (" << describe(
                               err) << "): retrying on the next scan");
        // The table may still answer, after we stopped listening: the
        // brokers it reported then would never be unregistered.
        self->send(st.live, unreport_atom::value);
      });
}

} // namespace

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
  // A scan timer that replaces a dead one: the scan its predecessor had in
  // flight may have marked brokers reported, for an answer nobody reads.
  self->send(st.live, unreport_atom::value);
  arm();
  return {
    [=](caf::tick_atom) {
      scan(self);
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
          {"expired", expired},
          {"failed_scans", failed_scans}};
}

} // namespace rmq
