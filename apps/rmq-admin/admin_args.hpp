// Command line of rmq-admin in mqadmin's shape ("-n addr topicRoute -t T"),
// read with the shared option parser (runtime/process/option_parser.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/net/host_port.hpp"

namespace rmq::admin {

/// A NameServer address, "host:port".
using namesrv_addr = host_port;

struct admin_args {
  /// RocketMQ's semicolon list ("127.0.0.1:9886;127.0.0.1:9887").
  std::vector<namesrv_addr> namesrvs;
  /// Upper bound for connecting and for every request.
  std::chrono::milliseconds timeout{5000};
  /// `--tls-dir`: mutual TLS with this directory's ca.pem, cert.pem,
  /// key.pem (see node_config::tls_dir); empty for plain TCP.
  std::string tls_dir;
  std::string command;
  /// Command options by their short name ('t' for -t / --topic).
  std::map<char, std::string> opts;
  bool help = false;

  /// Returns the value of option `key`, or an empty string.
  std::string opt(char key) const {
    auto i = opts.find(key);
    return i != opts.end() ? i->second : std::string{};
  }
};

/// Parses `argv`; returns the reason on a usage error. Falls back to the
/// NAMESRV_ADDR environment variable, as mqadmin does.
std::optional<std::string> parse_args(int argc, char** argv, admin_args& out);

/// The text printed for `--help` and usage errors.
std::string usage_text();

} // namespace rmq::admin
