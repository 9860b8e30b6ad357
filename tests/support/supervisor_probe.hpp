// Drives a node supervisor (actors/common/supervisor) from a deterministic
// test: looks up and kills its children and reads how it ended.
#pragma once

#include <string>

#include "caf/optional.hpp"
#include "caf/system_messages.hpp"

#include "actors/common/supervisor.hpp"
#include "tests/support/deterministic_fixture.hpp"

namespace rmq::test {

class supervisor_probe {
public:
  /// Monitors `sup` from the fixture's scoped actor.
  supervisor_probe(deterministic_fixture& fx, supervisor_actor sup)
    : fx_(fx), sup_(std::move(sup)) {
    fx_.self->monitor(sup_);
  }

  /// The child now running under `name`.
  caf::actor current(const std::string& name) {
    return fx_.ask<caf::actor>(sup_, caf::get_atom::value, name);
  }

  /// Kills the child named `name` and lets the supervisor react.
  void kill(const std::string& name) {
    caf::anon_send_exit(current(name), caf::exit_reason::kill);
    fx_.sched.run();
  }

  /// The supervisor's exit reason, or none while it runs.
  caf::optional<std::string> failure() {
    if (fx_.self->mailbox().empty())
      return caf::none;
    std::string result;
    fx_.self->receive(
      [&](const caf::down_msg& dm) { result = fx_.sys.render(dm.reason); });
    return result;
  }

private:
  deterministic_fixture& fx_;
  supervisor_actor sup_;
};

} // namespace rmq::test
