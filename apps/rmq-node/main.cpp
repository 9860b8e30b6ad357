// rmq-node --role=namesrv [--port=9876] [--host=127.0.0.1] [--tls-dir=D]
// rmq-node --role=broker --namesrv='127.0.0.1:9876;127.0.0.1:9877'
//   --name=broker-a --cluster=DefaultCluster --port=10911 --store-dir=DIR
//   [--broker-id=0] [--flush-disk-type=ASYNC_FLUSH|SYNC_FLUSH]
// Runs one node until SIGINT or SIGTERM, then shuts down gracefully and
// exits 0; exits 1 if a part of the node failed. Options can also come
// from a CAF config file, e.g.
// --config-file=apps/rmq-node/broker.example.ini. `--help` lists them all.
#include <csignal>
#include <iostream>
#include <string>

#include <pthread.h>

#include "caf/actor_system.hpp"

#include "apps/rmq-node/node_options.hpp"
#include "runtime/log.hpp"

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  // Block the shutdown signals before CAF starts threads, so that only
  // sigwait() in the main thread sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1); // raised by the supervisor's watchdog
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  rmq::node::options cfg;
  if (auto err = cfg.parse_command_line(argc, argv)) {
    std::cerr << "rmq-node: " << caf::actor_system_config::render(err)
              << std::endl;
    return 2;
  }
  if (cfg.cli_helptext_printed)
    return 0;
  rmq::log::level lvl;
  if (!rmq::log::parse_level(cfg.log_level, lvl)) {
    std::cerr << "rmq-node: unknown --log-level " << cfg.log_level << '\n';
    return 2;
  }
  rmq::log::set_level(lvl);
  if (cfg.role != "namesrv" && cfg.role != "broker") {
    std::cerr << "rmq-node: unknown role '" << cfg.role
              << "' (namesrv or broker)" << std::endl;
    return 2;
  }
  if (cfg.port < -1 || cfg.port > 65535) {
    std::cerr << "rmq-node: bad --port " << cfg.port << std::endl;
    return 2;
  }
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "rmq-node: " << why << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  if (cfg.role == "broker")
    return rmq::node::run_broker(sys, cfg, signals);
  return rmq::node::run_namesrv(sys, cfg, signals);
}
