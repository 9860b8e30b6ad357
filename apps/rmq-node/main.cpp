// rmq-node --role=namesrv [--port=9876] [--host=127.0.0.1] [--tls-dir=D]
// Runs one node until SIGINT or SIGTERM, then shuts down gracefully (KV
// config saved, connections closed) and exits 0 (1 if the front actor was
// stopped). Options can also come from a CAF config file, e.g.
// --config-file=apps/rmq-node/namesrv.example.ini. `--help` lists them all.
#include <csignal>
#include <iostream>
#include <string>
#include <thread>

#include <pthread.h>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/namesrv/namesrv_node.hpp"
#include "messages/errors.hpp"
#include "runtime/home_dir.hpp"
#include "runtime/log.hpp"
#include "runtime/node_config.hpp"
#include "runtime/publish.hpp"

namespace {

struct config : rmq::node_config {
  std::string role = "namesrv";
  std::string host = "127.0.0.1";
  uint16_t port = 9876;
  int64_t scan_interval_ms = 5'000;
  int64_t broker_timeout_ms = 120'000;
  std::string kv_config_path = rmq::home_dir() + "/namesrv/kvConfig.json";
  size_t unregister_queue_capacity = 3000;
  bool disable_all_topic_list = false;
  bool disable_topic_list = false;
  bool order_message_enable = false;
  bool delete_topic_with_broker_registration = false;
  std::string log_level = "info";

  config() {
    opt_group{custom_options_, "global"}
      .add(role, "role", "namesrv (broker: coming with the broker issue)")
      .add(host, "host",
           "address to listen on (without --tls-dir anyone "
           "who can connect is trusted: keep it on loopback)")
      .add(port, "port,p", "port to listen on; 0 picks a free one")
      .add(scan_interval_ms, "scan-interval-ms",
           "how often silent brokers are looked for (0: never)")
      .add(broker_timeout_ms, "broker-timeout-ms",
           "silence after which a broker is dropped")
      .add(kv_config_path, "kv-config-path",
           "where the KV config is kept ('' = memory only)")
      .add(unregister_queue_capacity, "unregister-queue-capacity",
           "queued unregistrations before requests are refused")
      .add(disable_all_topic_list, "disable-all-topic-list",
           "refuse GET_ALL_TOPIC_LIST_FROM_NAMESERVER")
      .add(disable_topic_list, "disable-topic-list",
           "refuse GET_TOPICS_BY_CLUSTER")
      .add(order_message_enable, "order-message-enable",
           "add ORDER_TOPIC_CONFIG to routes")
      .add(delete_topic_with_broker_registration,
           "delete-topic-with-broker-registration",
           "a registration without a topic removes the broker from it")
      .add(log_level, "log-level", "debug, info, warn, error or off");
  }
};

int run_namesrv(caf::actor_system& sys, const config& cfg,
                const sigset_t& signals) {
  rmq::namesrv_options opts;
  opts.listen_addr = cfg.host;
  opts.port = cfg.port;
  opts.scan_interval = std::chrono::milliseconds{cfg.scan_interval_ms};
  opts.broker_timeout = std::chrono::milliseconds{cfg.broker_timeout_ms};
  opts.kv_config_path = cfg.kv_config_path;
  opts.unregister_queue_capacity = cfg.unregister_queue_capacity;
  opts.enable_all_topic_list = !cfg.disable_all_topic_list;
  opts.enable_topic_list = !cfg.disable_topic_list;
  opts.order_message_enable = cfg.order_message_enable;
  opts.delete_topic_with_broker_registration
    = cfg.delete_topic_with_broker_registration;
  auto node = rmq::spawn_namesrv(sys, opts);
  auto port = rmq::publish(sys, node.frontend, cfg.port, cfg.host);
  if (!port) {
    std::cerr << "rmq-node: cannot listen on " << cfg.host << ":" << cfg.port
              << ": " << sys.render(port.error()) << std::endl;
    node.stop(sys);
    return 1;
  }
  // Tests and scripts read this line to learn the port.
  std::cout << "namesrv listening on " << cfg.host << ":" << *port << std::endl;
  RMQ_INFO("namesrv", "listening on " << cfg.host << ":" << *port
                                      << (cfg.tls() ? " (mutual TLS)" : "")
                                      << ", KV config at '"
                                      << cfg.kv_config_path << "'");
  // The node's supervisor stops when an actor with state died (any peer
  // that can connect can send the front actor an exit message, which CAF
  // 0.17 cannot refuse). A node with a dead part would look alive and not
  // work, so it exits instead and a supervisor can restart it.
  std::string down_reason;
  std::thread watchdog{[&sys, &down_reason, sup = node.supervisor] {
    caf::scoped_actor self{sys};
    self->monitor(sup);
    self->receive(
      [&](caf::down_msg& dm) { down_reason = sys.render(dm.reason); });
    kill(getpid(), SIGUSR1);
  }};
  int sig = 0;
  sigwait(&signals, &sig);
  if (sig != SIGUSR1)
    RMQ_INFO("namesrv", "signal " << sig << ": shutting down");
  sys.middleman().unpublish(node.frontend, *port);
  node.stop(sys);
  watchdog.join();
  if (sig == SIGUSR1) {
    RMQ_ERROR("namesrv", "node failed (" << down_reason << "): exiting");
    return 1;
  }
  return 0;
}

} // namespace

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
  config cfg;
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
  if (cfg.role != "namesrv") {
    std::cerr << "rmq-node: role '" << cfg.role
              << "' is not available yet (only namesrv)" << std::endl;
    return 2;
  }
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "rmq-node: " << why << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  return run_namesrv(sys, cfg, signals);
}
