// --remoting-port: a node's RocketMQ remoting front door, for both roles.
#include <iostream>

#include "apps/rmq-node/node_options.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/tls_stream.hpp"

namespace rmq::node {

std::optional<caf::actor>
serve_remoting(caf::actor_system& sys, const options& cfg, const char* role,
               uint16_t port, remoting_handler handler,
               const supervisor_actor& supervisor) {
  remoting_server_options opts;
  // Under TLS, the remoting port is as guarded as the CAF one: a plain
  // port beside it would let anyone in (docs/remoting.md, "Ports").
  if (cfg.tls()) {
    auto ctx = tls_context::load(cfg.openssl_cafile, cfg.openssl_certificate,
                                 cfg.openssl_key, true);
    if (!ctx) {
      std::cerr << "rmq-node: remoting TLS: " << describe(ctx.error())
                << std::endl;
      return std::nullopt;
    }
    opts.tls = std::move(*ctx);
  }
  opts.name = role;
  if (cfg.max_frame_bytes > 0)
    opts.max_frame = static_cast<size_t>(cfg.max_frame_bytes);
  opts.idle_timeout = std::chrono::milliseconds{cfg.remoting_idle_timeout_ms};
  opts.stall_timeout = std::chrono::milliseconds{cfg.remoting_stall_timeout_ms};
  auto started = start_remoting_server(sys, cfg.host, port, opts,
                                       std::move(handler));
  if (!started) {
    std::cerr << "rmq-node: cannot listen on " << cfg.host << ":" << port
              << " (remoting): " << sys.render(started.error()) << std::endl;
    return std::nullopt;
  }
  auto server = started->first;
  // Its death is the node's failure, as any other part's: the supervisor
  // stops, and the process exits 1 for its own supervisor.
  std::string name = role;
  server->attach_functor([supervisor, name](const caf::error& why) {
    if (why && why != caf::exit_reason::user_shutdown) {
      RMQ_ERROR(name.c_str(), "the remoting server exited: " << describe(why));
      caf::anon_send_exit(supervisor, caf::exit_reason::unhandled_exception);
    }
  });
  // Tests and scripts read this line to learn the port.
  std::cout << role << " remoting on " << cfg.host << ":" << started->second
            << (cfg.tls() ? " (mutual TLS)" : "") << std::endl;
  return server;
}

} // namespace rmq::node
