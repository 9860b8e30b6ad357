// The start of a program that runs until a signal (the examples, the
// stand-in broker): block SIGINT and SIGTERM before CAF starts its threads,
// so that only the main thread's sigtimedwait() or sigwait() sees them,
// then read the command line (CAF config options, `--help`) and the network
// settings (TLS) into the program's config. Public as
// <rmq/program_start.hpp>.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <string>

#include "caf/actor_system_config.hpp"

namespace rmq {

/// Returns the set of SIGINT and SIGTERM.
inline sigset_t shutdown_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

/// Blocks SIGINT and SIGTERM in this thread and in the threads it starts
/// later; returns them, for sigtimedwait() or sigwait().
inline sigset_t block_shutdown_signals() {
  auto signals = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

/// Reads the command line into `cfg` (an rmq::node_config) and, with
/// `network`, loads its network settings. Returns -1 to go on, else the
/// exit code: 0 after `--help`, 2 on a bad option or network setting
/// (printed after `name`).
template <class Config>
int read_config(Config& cfg, int argc, char** argv, const char* name,
                bool network = true) {
  if (auto err = cfg.parse_command_line(argc, argv)) {
    std::cerr << name << ": " << caf::actor_system_config::render(err)
              << std::endl;
    return 2;
  }
  if (cfg.cli_helptext_printed)
    return 0;
  if (network)
    if (auto why = cfg.load_network(); !why.empty()) {
      std::cerr << name << ": " << why << std::endl;
      return 2;
    }
  return -1;
}

} // namespace rmq
