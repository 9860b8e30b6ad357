// Picks a port nobody listens on, or checks one, for nodes that must know their port
// before they listen (a broker registers its address first). The kernel's
// choice for a socket bound to port 0; another process could take it
// before we bind it again, which a node then reports as a listen error.
#pragma once

#include <cstdint>
#include <string>

#include "caf/expected.hpp"

namespace rmq {

/// A free TCP port on the IPv4 address `host`.
caf::expected<uint16_t> pick_free_port(const std::string& host);

/// Fails when nothing could listen on `host:port` now (another process
/// listens there), as a listen with SO_REUSEADDR would. A node checks its
/// port before it opens its files, so that a second start of the same
/// command exits before it touches them.
caf::error check_port_free(const std::string& host, uint16_t port);

} // namespace rmq
