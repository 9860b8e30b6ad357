// Helpers for system tests with real NameServer processes: start rmq-node
// and standin-broker on free loopback ports, run rmq-admin, and talk to a
// node from the test process through a real actor system (CAF io over
// loopback, not the test coordinator).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/sec.hpp"

#include "messages/namesrv/namesrv.hpp"
#include "runtime/net/blocking_ask.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/process/node_config.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace rmq::test {

/// A running `rmq-node --role=namesrv`, killed with the object.
struct namesrv_process {
  std::unique_ptr<child_process> proc;
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  /// The remoting port (a free one; mutual TLS under TLS).
  uint16_t remoting_port = 0;

  std::string addr() const {
    return host + ":" + std::to_string(port);
  }
};

/// Starts a NameServer on a free port; REQUIREs that it comes up.
/// `kv_path` empty: KV config in memory only.
namesrv_process start_namesrv(const std::string& kv_path = "");

/// How `start_namesrv` runs a node beyond the defaults.
struct namesrv_launch {
  /// Empty: KV config in memory only.
  std::string kv_path;
  /// --host: the address it listens on.
  std::string host = "127.0.0.1";
  /// 0 picks a free port.
  uint16_t port = 0;
  /// Non-empty: mutual TLS with this directory's certificates.
  std::string tls_dir;
  /// More flags, e.g. "--first-frame-timeout-ms=500".
  std::vector<std::string> extra;
  /// A command it runs under, e.g. {"/usr/bin/prlimit", "--nofile=256"}.
  std::vector<std::string> prefix;
  /// true: its stderr (the log) joins stdout, for tests that read the log.
  bool log_to_stdout = false;
};

/// Starts a NameServer as `how` says; REQUIREs that it comes up.
namesrv_process start_namesrv(const namesrv_launch& how);

/// Starts a stand-in broker registering `topics` (4/4 queues) with every
/// NameServer in `addrs`; REQUIREs one "registered with" line per address.
/// `tls_dir` non-empty: over mutual TLS.
std::unique_ptr<child_process>
start_broker(const std::vector<std::string>& addrs,
             const std::string& broker_name = "broker-a",
             const std::string& topics = "TopicA,TopicB",
             const std::string& tls_dir = "");

/// Runs apps/rmq-node/make-dev-certs.sh: a CA in `dir` and one certificate
/// directory `dir`/NAME per name; REQUIREs that it works.
void make_dev_certs(const std::string& dir,
                    const std::vector<std::string>& names);

/// A KiB figure of /proc/PID/status (`field` "VmRSS", "VmHWM", ...); -1
/// when there is none.
long status_kib(pid_t pid, const std::string& field);

/// Returns the resident memory of process `pid` in KiB (/proc, VmRSS).
long rss_kib(pid_t pid);

/// Joins addresses with ';' (RocketMQ's NameServer list).
std::string join_addrs(const std::vector<std::string>& addrs);

/// Result of one rmq-admin run; `out` holds stdout and stderr.
struct admin_run {
  int rc = -1;
  std::string out;
};

/// Runs `rmq-admin <args...>` (no shell quoting: plain arguments only).
admin_run run_admin(const std::vector<std::string>& args);

/// Returns a loopback port nobody listens on (bound, then closed).
uint16_t unused_port();

/// Connects a plain TCP socket to 127.0.0.1:`port`; -1 on failure.
int raw_connect(uint16_t port);

/// Sends all of `bytes` (stops early if the peer closed).
void raw_send(int fd, const std::vector<uint8_t>& bytes);

/// Waits up to `timeout` for the peer to close `fd` (reads and drops what
/// it sends); returns whether it did.
bool wait_closed_by_peer(int fd, std::chrono::milliseconds timeout);

/// `n` random bytes whose first one is no BASP operation (0x00..0x06):
/// random bytes that happen to form a valid header with a huge payload_len
/// are the 4 GiB header below, which a plain node cannot refuse.
std::vector<uint8_t> random_bytes(size_t n, uint32_t seed);

/// What a confused or hostile peer sends: random bytes (short and
/// 100 KB), 4 KiB of 0xFF and of 0x00, an HTTP request.
std::vector<std::vector<uint8_t>> garbage_payloads(uint32_t seed);

/// A BASP header as CAF 0.17 serializes it (caf/io/basp/header.hpp): one
/// byte operation, two padding bytes, flags, then payload_len (big endian),
/// operation_data, source and destination actor. A server_handshake that
/// claims a 4 GiB payload.
std::vector<uint8_t> oversize_basp_header();

/// Sends the oversize header from three connections at once to the node
/// `proc` listening on `port`, CHECKs that the node closes each, and
/// returns how much its resident memory grew (KiB).
long rss_growth_from_oversize_headers(child_process& proc, uint16_t port);

/// A client actor system inside the test process.
class remote_client {
public:
  /// `tls_dir` non-empty: mutual TLS with this directory's certificates.
  explicit remote_client(const std::string& tls_dir = "");

  /// Connects to 127.0.0.1:`port` with a 5 s bound; returns the error on
  /// failure.
  caf::expected<namesrv_actor> try_connect(uint16_t port);

  /// Connects to any published actor of type `Handle` (a broker's front:
  /// broker_actor) with a 5 s bound.
  template <class Handle>
  caf::expected<Handle> try_connect_to(uint16_t port) {
    return rmq::connect<Handle>(self, host_port{"127.0.0.1", port},
                                std::chrono::seconds{5});
  }

  /// Connects with a 5 s bound; returns a null handle on failure.
  namesrv_actor connect(uint16_t port);

  /// Sends `req` to `hdl` and waits at most `timeout` for a `Result`.
  template <class Result, class Handle, class Request>
  caf::expected<Result>
  ask(const Handle& hdl, Request req,
      std::chrono::milliseconds timeout = std::chrono::seconds{5}) {
    return blocking_ask<Result>(self, hdl, timeout, std::move(req));
  }

  /// Whether the NameServer's cluster info lists `broker_name` (false also
  /// when it does not answer).
  bool knows_broker(const namesrv_actor& hdl, const std::string& broker_name);

  node_config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
};

} // namespace rmq::test
