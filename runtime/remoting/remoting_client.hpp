// A blocking remoting client over one TCP connection: what the tests and
// rmq-bench use to talk to our nodes as a RocketMQ client would, through
// the same codec the nodes serve with (frame_codec). One thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/net/tls_stream.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

class remoting_client {
public:
  remoting_client() = default;
  remoting_client(const remoting_client&) = delete;
  remoting_client& operator=(const remoting_client&) = delete;
  remoting_client(remoting_client&& other) noexcept;
  remoting_client& operator=(remoting_client&& other) noexcept;
  ~remoting_client();

  /// Connects to `host`:`port` (an IPv4 address), over mutual TLS with
  /// `tls` (a client context) when given; false and `error()` set when it
  /// cannot.
  bool connect(const std::string& host, uint16_t port,
               std::shared_ptr<tls_context> tls = nullptr);

  bool connected() const {
    return fd_ >= 0;
  }

  /// Sends `cmd` as one frame.
  bool send(const remoting_command& cmd);

  /// Sends bytes as they are, through TLS when connected with it (tests
  /// of bad frames).
  bool send_raw(std::string_view bytes);

  /// The next command the peer sends within `timeout`; nullopt on a
  /// timeout, a closed connection (then `peer_closed()`) or a bad frame.
  std::optional<remoting_command> receive(std::chrono::milliseconds timeout);

  /// Sends `req` with a fresh opaque and waits for its response; other
  /// commands that arrive meanwhile are kept for `receive`.
  std::optional<remoting_command> call(remoting_command req,
                                       std::chrono::milliseconds timeout);

  /// Whether the peer closed the connection (seen by a receive).
  bool peer_closed() const {
    return peer_closed_;
  }

  const std::string& error() const {
    return error_;
  }

  void close();

private:
  bool write_socket(std::string_view bytes);
  // Reads what the socket has within `timeout` into the reader (through
  // TLS); false on a closed connection or a TLS failure.
  bool read_socket(std::chrono::milliseconds timeout);

  int fd_ = -1;
  std::unique_ptr<tls_stream> tls_;
  int32_t next_opaque_ = 1;
  frame_reader reader_{};
  std::deque<remoting_command> kept_;
  bool peer_closed_ = false;
  std::string error_;
};

} // namespace rmq::remoting
