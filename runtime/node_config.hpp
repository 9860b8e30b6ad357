// The actor_system_config every rmq process and every test starts from.
// Registering all message types in one place keeps the type names identical
// on both ends of a connection; remote_actor<T> compares them.
#pragma once

#include "caf/actor_system_config.hpp"

namespace rmq {

class node_config : public caf::actor_system_config {
public:
  node_config();

  /// Applies the scheduler settings that make remote round trips ~7x faster
  /// on a small box (sharing policy, no middleman workers, one scheduler
  /// thread). Called by the constructor; CLI flags and config files parsed
  /// later override it.
  void apply_tuned_defaults();

  /// Parses main's arguments with the shared option syntax
  /// (runtime/option_parser.hpp) and then the config file, if any.
  caf::error parse_command_line(int argc, char** argv);
};

} // namespace rmq
