// The actor_system_config every rmq process and every test starts from.
// Registering all message types in one place keeps the type names identical
// on both ends of a connection; remote_actor<T> compares them.
#pragma once

#include <string>

#include "caf/actor_system_config.hpp"

namespace rmq {

class node_config : public caf::actor_system_config {
public:
  node_config();

  /// Applies the scheduler settings that make remote round trips ~7x faster
  /// on a small box (sharing policy, no middleman workers, one scheduler
  /// thread). Called by the constructor; CLI flags and config files parsed
  /// later override it.
  void apply_tuned_defaults();

  /// Parses main's arguments with the shared option syntax
  /// (runtime/process/option_parser.hpp) and then the config file, if any.
  caf::error parse_command_line(int argc, char** argv);

  /// `--tls-dir`: a directory holding `ca.pem` (the cluster's CA),
  /// `cert.pem` and `key.pem` (this process), as made by
  /// apps/rmq-node/make-dev-certs.sh. Non-empty turns on mutual TLS; so do
  /// CAF's own `openssl.certificate`, `openssl.key` and `openssl.cafile`.
  std::string tls_dir;

  /// Returns whether this process talks TLS (see `tls_dir`).
  bool tls() const;

  /// Call once after parsing, before the actor system starts: fills the
  /// `openssl.*` settings from `tls_dir`, checks that the certificate, key
  /// and CA load (CAF would find out only at the first connection, and
  /// throw in its I/O thread), loads the middleman and, with TLS, the
  /// openssl manager. Returns why TLS cannot start, or an empty string.
  std::string load_network();
};

} // namespace rmq
