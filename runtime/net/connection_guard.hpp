// Keeps unauthenticated peers from stopping a node (rmq-node, both roles,
// plain TCP and TLS). CAF 0.17's middleman accepts every connection, waits
// forever for its first frame and reads a frame of any announced length in
// full before anything can refuse it; when descriptors run out its
// acceptor fails. The guard watches the connections the process accepts,
// at the socket calls CAF makes (accept, recv, SSL_read, close: defined in
// this file's .cpp, bound by the dynamic linker as openssl_fixes' are):
// - at most `max_connections` accepted connections; more are closed at
//   once, and so is the next peer when descriptors run out (a reserve
//   descriptor makes room to take it off the queue): the node refuses new
//   connections and keeps serving the ones it has;
// - a connection whose first whole BASP frame (after the TLS handshake)
//   has not arrived within `first_frame_timeout` is shut down;
// - a frame whose header announces more than `max_frame_bytes` shuts its
//   connection down before one byte of it is read.
// Each is logged at WARN with the peer's address. Connections the process
// opens itself are not watched.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace rmq::connection_guard {

struct settings {
  size_t max_connections = 10'000;
  std::chrono::milliseconds first_frame_timeout{10'000};
  uint32_t max_frame_bytes = 16 * 1024 * 1024;
};

/// Starts guarding this process's accepted connections (once; later calls
/// change the settings). `max_connections` is lowered to what the
/// descriptor limit leaves after `reserve` descriptors for files.
void enable(settings cfg, size_t reserve = 128);

/// Connections accepted on `listener_fd` speak another protocol than
/// BASP (a remoting port): they count towards `max_connections`, and
/// their server applies its own frame limits and timeouts.
void not_basp(int listener_fd);

/// What the guard did so far.
struct counters {
  size_t open = 0;     ///< Accepted connections open now.
  int64_t refused = 0; ///< Closed at accept: over the cap or no fds.
  int64_t idle_closed = 0;
  int64_t oversize_closed = 0;
};

counters stats();

/// Whether the socket calls of the process reach the guard.
bool linked();

/// For openssl_fixes' SSL_read: counts `n` bytes decrypted from `fd`;
/// false when the connection was shut down (a frame over the limit).
bool on_tls_bytes(int fd, const void* data, size_t n);

} // namespace rmq::connection_guard
