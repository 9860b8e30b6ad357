// One parser for "host:port" and RocketMQ's NameServer list
// ("127.0.0.1:9876;127.0.0.1:9877"), used by every rmq program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rmq {

/// A TCP endpoint as written on a command line, "host:port".
struct host_port {
  std::string host;
  uint16_t port = 0;

  /// Returns "host:port".
  std::string to_string() const {
    return host + ":" + std::to_string(port);
  }
};

/// Parses a port number; `allow_zero` accepts 0 ("pick a free port").
/// Returns nullopt unless `text` is all digits and within range.
std::optional<uint16_t> parse_port(const std::string& text,
                                   bool allow_zero = false);

/// Parses "host:port" (the last ':' separates, so "[::1]:9876" keeps its
/// brackets in `host`). Returns nullopt on a bad port or a host that is no
/// name or address (empty, or with a ',' or a space in it).
std::optional<host_port> parse_host_port(const std::string& text);

/// Parses "host:port[;host:port...]" (empty entries are skipped, as in
/// RocketMQ; spaces around an entry are dropped). Returns nullopt on a
/// malformed entry (e.g. one separated by ',') or an empty list.
std::optional<std::vector<host_port>>
parse_host_port_list(const std::string& text);

/// Joins endpoints with ';'.
std::string join_host_ports(const std::vector<host_port>& xs);

} // namespace rmq
