#include "actors/common/supervisor.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

namespace rmq {

const char* supervisor_state::name = "supervisor";

namespace {

using self_ptr = supervisor_actor::stateful_pointer<supervisor_state>;

// Stops the node: the supervisor's exit reason names the child.
void escalate(self_ptr self, const supervisor_state::child& c,
              const std::string& reason, const std::string& why) {
  RMQ_ERROR(self->state.node.c_str(), "actor " << c.spec.name << " exited ("
                                               << reason << ")" << why
                                               << ": stopping the node");
  self->quit(make_error(errc::system_error,
                        "actor " + c.spec.name + " exited: " + reason));
}

void on_down(self_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  auto i = std::find_if(st.children.begin(), st.children.end(),
                        [&](const supervisor_state::child& c) {
                          return c.spec.hdl.address() == dm.source;
                        });
  if (i == st.children.end())
    return; // a replaced handle
  auto& c = *i;
  auto reason = describe(dm.reason);
  if (!c.spec.respawn) {
    escalate(self, c, reason, "");
    return;
  }
  auto now = self->clock().now();
  auto& recent = c.recent_restarts;
  recent.erase(std::remove_if(recent.begin(), recent.end(),
                              [&](caf::actor_clock::time_point t) {
                                return now - t >= st.options.restart_window;
                              }),
               recent.end());
  if (recent.size() >= st.options.max_restarts) {
    escalate(self, c, reason,
             " after " + std::to_string(recent.size())
               + " respawns in the restart window");
    return;
  }
  recent.push_back(now);
  ++c.restarts;
  auto& spawned = *st.replacements;
  spawned.erase(std::remove(spawned.begin(), spawned.end(), c.spec.hdl),
                spawned.end());
  c.spec.hdl = c.spec.respawn();
  spawned.push_back(c.spec.hdl);
  self->monitor(c.spec.hdl);
  RMQ_WARN(st.node.c_str(),
           "actor " << c.spec.name << " exited (" << reason << "): respawned");
}

} // namespace

supervisor_actor::behavior_type
supervisor(supervisor_actor::stateful_pointer<supervisor_state> self,
           std::string node, std::vector<supervised_child> children,
           supervisor_options options) {
  auto& st = self->state;
  st.node = std::move(node);
  st.options = options;
  for (auto& x : children) {
    self->monitor(x.hdl);
    st.children.push_back({std::move(x), {}, 0});
  }
  self->set_down_handler([=](caf::down_msg& dm) { on_down(self, dm); });
  // Whoever stops the node stops the actors it spawned; the replacements
  // exist only here.
  self->attach_functor([replacements = st.replacements](const caf::error&) {
    for (auto& hdl : *replacements)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  });
  return {
    [=](caf::get_atom, const std::string& name) {
      for (auto& c : self->state.children)
        if (c.spec.name == name)
          return c.spec.hdl;
      return caf::actor{};
    },
    [=](dump_atom) {
      auto rows = nlohmann::json::array();
      for (auto& c : self->state.children)
        rows.push_back({{"name", c.spec.name},
                        {"respawn", static_cast<bool>(c.spec.respawn)},
                        {"restarts", c.restarts}});
      return nlohmann::json{
        {"actor", supervisor_state::name},
        {"node", self->state.node},
        {"children", rows},
        {"max_restarts", self->state.options.max_restarts},
        {"restart_window_ms",
         std::chrono::duration_cast<std::chrono::milliseconds>(
           self->state.options.restart_window)
           .count()}}
        .dump();
    },
  };
}

} // namespace rmq
