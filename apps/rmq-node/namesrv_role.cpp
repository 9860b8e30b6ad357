// rmq-node --role=namesrv: a NameServer until a signal or a failure.
#include <iostream>
#include <string>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"

#include "actors/common/remoting_server.hpp"
#include "actors/namesrv/namesrv_node.hpp"
#include "actors/namesrv/namesrv_remoting.hpp"
#include "apps/rmq-node/node_options.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/free_port.hpp"
#include "runtime/process/publish.hpp"

namespace rmq::node {

int run_namesrv(caf::actor_system& sys, const options& cfg,
                const sigset_t& signals) {
  namesrv_options opts;
  opts.listen_addr = cfg.host;
  auto want_port = static_cast<uint16_t>(cfg.port < 0 ? namesrv_caf_port
                                                      : cfg.port);
  opts.port = want_port;
  auto remoting_port = static_cast<uint16_t>(
    cfg.remoting_port < 0 ? namesrv_remoting_port : cfg.remoting_port);
  opts.remoting_port = remoting_port;
  // Said plainly before anything listens: "Address already in use".
  if (remoting_port != 0)
    if (auto err = check_port_free(cfg.host, remoting_port)) {
      std::cerr << "rmq-node: " << describe(err) << std::endl;
      return 1;
    }
  opts.scan_interval = std::chrono::milliseconds{cfg.scan_interval_ms};
  opts.broker_timeout = std::chrono::milliseconds{cfg.broker_timeout_ms};
  opts.kv_config_path = cfg.kv_config_path;
  opts.unregister_queue_capacity = cfg.unregister_queue_capacity;
  opts.enable_all_topic_list = !cfg.disable_all_topic_list;
  opts.enable_topic_list = !cfg.disable_topic_list;
  opts.order_message_enable = cfg.order_message_enable;
  opts.delete_topic_with_broker_registration
    = cfg.delete_topic_with_broker_registration;
  auto node = spawn_namesrv(sys, opts);
  auto port = publish(sys, node.frontend, want_port, cfg.host);
  if (!port) {
    std::cerr << "rmq-node: cannot listen on " << cfg.host << ":" << want_port
              << ": " << sys.render(port.error()) << std::endl;
    node.stop(sys);
    return 1;
  }
  // Tests and scripts read this line to learn the port.
  std::cout << "namesrv listening on " << cfg.host << ":" << *port << std::endl;
  auto remoting = serve_remoting(sys, cfg, "namesrv", remoting_port,
                                 namesrv_remoting(node.frontend),
                                 node.supervisor);
  if (!remoting) {
    sys.middleman().unpublish(node.frontend, *port);
    node.stop(sys);
    return 1;
  }
  RMQ_INFO("namesrv", "listening on " << cfg.host << ":" << *port
                                      << (cfg.tls() ? " (mutual TLS)" : "")
                                      << ", KV config at '"
                                      << cfg.kv_config_path << "'");
  stop_watch watch{sys, node.supervisor};
  auto sig = watch.wait(signals, "namesrv");
  sys.middleman().unpublish(node.frontend, *port);
  caf::anon_send_exit(*remoting, caf::exit_reason::user_shutdown);
  node.stop(sys);
  if (sig == SIGUSR1) {
    RMQ_ERROR("namesrv", "node failed (" << watch.failure() << "): exiting");
    return 1;
  }
  return 0;
}

} // namespace rmq::node
