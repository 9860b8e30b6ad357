// rmq-node --role=namesrv [--port=9886] [--host=127.0.0.1] [--tls-dir=D]
// rmq-node --role=broker --namesrv='127.0.0.1:9886;127.0.0.1:9887'
//   --name=broker-a --cluster=DefaultCluster --port=10921 --store-dir=DIR
//   [--broker-id=0] [--flush-disk-type=ASYNC_FLUSH|SYNC_FLUSH]
// Runs one node until SIGINT or SIGTERM, then shuts down gracefully and
// exits 0; exits 1 if a part of the node failed. Options can also come
// from a CAF config file, e.g.
// --config-file=apps/rmq-node/broker.example.ini. `--help` lists them all.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <iostream>
#include <string>

#include <pthread.h>

#include "caf/actor_system.hpp"

#include "apps/rmq-node/node_options.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/connection_guard.hpp"

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  // Block the shutdown signals before CAF starts threads, so that only
  // sigwait() in the main thread sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1); // raised by the supervisor's watchdog
  sigaddset(&signals, SIGUSR2); // a broker's role change: restart in it
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
  if (cfg.remoting_port < -1 || cfg.remoting_port > 65535
      || (cfg.remoting_port > 0 && cfg.remoting_port == cfg.port)) {
    std::cerr << "rmq-node: bad --remoting-port " << cfg.remoting_port
              << " (0..65535, not --port's)" << std::endl;
    return 2;
  }
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "rmq-node: " << why << std::endl;
    return 2;
  }
  if (cfg.max_connections < 1 || cfg.first_frame_timeout_ms < 1
      || cfg.max_frame_bytes < 0 || cfg.max_frame_bytes > UINT32_MAX) {
    std::cerr << "rmq-node: --max-connections and --first-frame-timeout-ms "
                 "must be > 0, --max-frame-bytes in 0..4294967295"
              << std::endl;
    return 2;
  }
  // Before the first listen: idle, oversize and surplus peers are refused
  // from the first connection on (runtime/net/connection_guard.hpp). A send's
  // frame holds the body and its properties: room above the largest body.
  rmq::connection_guard::settings guard;
  guard.max_connections = static_cast<size_t>(cfg.max_connections);
  guard.first_frame_timeout
    = std::chrono::milliseconds{cfg.first_frame_timeout_ms};
  guard.max_frame_bytes = static_cast<uint32_t>(
    cfg.max_frame_bytes > 0 ? cfg.max_frame_bytes
    : cfg.role == "broker"  ? cfg.max_message_size + 1024 * 1024
                            : 16 * 1024 * 1024);
  rmq::connection_guard::enable(guard);
  if (!rmq::connection_guard::linked()) {
    std::cerr << "rmq-node: built without its socket guard (the executable "
                 "does not export accept/recv/close)"
              << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  if (cfg.role == "broker")
    return rmq::node::run_broker(sys, cfg, signals);
  return rmq::node::run_namesrv(sys, cfg, signals);
}
