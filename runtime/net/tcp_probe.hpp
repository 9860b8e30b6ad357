// One TCP handshake with a deadline: whether `host:port` accepts a
// connection within `timeout`. CAF 0.17's middleman connects with a
// blocking connect(2), one connect at a time: a host that is gone (no
// RST, SYNs unanswered) holds every later connect of the process for
// the kernel's SYN retries (about two minutes), e.g. a consumer's
// fallback to a slave behind its lost master. Probing first fails such a
// connect at its own deadline; the blocking connect then only runs
// against a host that answered.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "caf/error.hpp"

namespace rmq {

/// Blocks up to `timeout` (plus name resolution): none if a connection
/// was made (and closed at once), else cannot_connect_to_node with why.
caf::error tcp_probe(const std::string& host, uint16_t port,
                     std::chrono::milliseconds timeout);

} // namespace rmq
