#include "actors/client/instance/latency_fault_service.hpp"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* latency_fault_state::name = "latency_fault_service";

namespace {

constexpr const char* component = "latency_fault";

constexpr int64_t ns_per_ms = 1000000;

template <class Self>
int64_t now_ns(Self* self) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

} // namespace

nlohmann::json latency_fault_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& item : table.snapshot().items) {
    auto wait_ns = std::max<int64_t>(item.available_at_ns - dump_now_ns, 0);
    // Rounded up: a broker 0.4 ms from back is not available yet.
    rows.push_back(
      {{"broker_name", item.broker_name},
       {"latency_ms", item.latency_ms},
       {"reachable", item.reachable},
       {"available_in_ms", (wait_ns + ns_per_ms - 1) / ns_per_ms}});
  }
  return {
    {"brokers", std::move(rows)},
    {"listeners", listeners.size()},
    {"reports", reports},
    {"pushes", pushes},
  };
}

latency_fault_service_actor::behavior_type latency_fault_service(
  latency_fault_service_actor::stateful_pointer<latency_fault_state> self,
  fault_policy policy) {
  self->state.table = latency_fault_table{std::move(policy)};
  self->set_down_handler([self](const caf::down_msg& msg) {
    auto& ls = self->state.listeners;
    ls.erase(std::remove_if(ls.begin(), ls.end(),
                            [&](const fault_listener_actor& x) {
                              return x.address() == msg.source;
                            }),
             ls.end());
  });
  return {
    [=](const fault_report& x) {
      auto& st = self->state;
      ++st.reports;
      if (!st.table.update(x, now_ns(self)))
        return;
      if (!x.reachable || x.isolation)
        RMQ_INFO(component, "broker "
                              << x.broker_name << " is out ("
                              << (x.reachable ? "isolated" : "unreachable")
                              << ")");
      ++st.pushes;
      auto snap = st.table.snapshot();
      for (auto& l : st.listeners)
        self->send(l, fault_atom::value, snap);
    },
    [=](fault_atom) { return self->state.table.snapshot(); },
    [=](caf::subscribe_atom, const fault_listener_actor& listener) {
      auto& ls = self->state.listeners;
      if (!listener || std::find(ls.begin(), ls.end(), listener) != ls.end())
        return;
      self->monitor(listener);
      ls.push_back(listener);
    },
    [=](dump_atom x) {
      self->state.dump_now_ns = now_ns(self);
      return dump_handler(self)(x);
    },
  };
}

} // namespace rmq
