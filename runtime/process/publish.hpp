// The one way an rmq process listens: CAF's publish with SO_REUSEADDR, so
// a node restarted at once (after kill -9 or SIGTERM with clients
// connected) can bind its port while old connections sit in TIME_WAIT;
// over TLS when the process runs with TLS (node_config).
#pragma once

#include <cstdint>
#include <string>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"
#include "caf/io/middleman.hpp"
#include "caf/openssl/publish.hpp"

namespace rmq {

/// Publishes `hdl` on `host`:`port` (0 picks a free port); returns the
/// port.
template <class Handle>
caf::expected<uint16_t> publish(caf::actor_system& sys, const Handle& hdl,
                                uint16_t port, const std::string& host) {
  // SO_REUSEADDR only lets us bind over TIME_WAIT: Linux still refuses a
  // second listener on a port someone listens on.
  constexpr bool reuse_addr = true;
  if (sys.has_openssl_manager())
    return caf::openssl::publish(hdl, port, host.c_str(), reuse_addr);
  return sys.middleman().publish(hdl, port, host.c_str(), reuse_addr);
}

} // namespace rmq
