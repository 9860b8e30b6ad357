// Watches the long-lived actors of one node (Erlang's one-for-one
// supervisor; RocketMQ has no counterpart, its services are threads of one
// JVM). A child that holds no state of its own is respawned when it exits;
// the exit of any other child stops the supervisor with an error naming the
// child and the reason, and the process watching the supervisor (rmq-node)
// exits non-zero so that its own supervisor restarts the node. A node never
// keeps running with a dead part.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/common/common.hpp"

namespace rmq {

using supervisor_actor = dumpable_actor::extend<
  // The current handle of a child (null if unknown): a respawned child has
  // a new one.
  caf::replies_to<caf::get_atom, std::string>::with<caf::actor>>;

/// One actor the supervisor watches.
struct supervised_child {
  /// Shown in logs and dumps (the actor's state name).
  std::string name;
  caf::actor hdl;
  /// Spawns and wires a replacement; empty when the child holds state, so
  /// that its exit stops the node.
  std::function<caf::actor()> respawn;
};

struct supervisor_options {
  /// More respawns of one child than this within `restart_window` stop the
  /// node: a child that dies at once again would only fill the log.
  size_t max_restarts = 5;
  caf::timespan restart_window = std::chrono::seconds{60};
};

struct supervisor_state {
  struct child {
    supervised_child spec;
    std::vector<caf::actor_clock::time_point> recent_restarts;
    size_t restarts = 0;
  };

  std::string node;
  supervisor_options options;
  std::vector<child> children;
  /// The replacements it spawned: the node stops the actors it spawned,
  /// the supervisor's exit stops these. Shared with the exit cleanup, as
  /// CAF destroys the state before attached functors run.
  std::shared_ptr<std::vector<caf::actor>> replacements
    = std::make_shared<std::vector<caf::actor>>();

  static const char* name;
};

/// Watches `children` of the node called `node` (for logs).
supervisor_actor::behavior_type
supervisor(supervisor_actor::stateful_pointer<supervisor_state> self,
           std::string node, std::vector<supervised_child> children,
           supervisor_options options);

} // namespace rmq
