// TLS over a byte stream we read and write ourselves (OpenSSL with memory
// BIOs): for connections that CAF's openssl module does not wrap, the
// remoting port's (docs/remoting.md, "Ports"). Mutual, as on the CAF
// ports: each side shows a certificate signed by the cluster's CA
// (`--tls-dir`: ca.pem, cert.pem, key.pem) and checks the other's.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "caf/expected.hpp"

struct ssl_ctx_st;
struct ssl_st;

namespace rmq {

/// A loaded certificate, key and CA (shared by every stream of a side).
class tls_context {
public:
  /// Loads the CA, certificate and key files (`--tls-dir`'s ca.pem,
  /// cert.pem and key.pem); an error says which failed.
  static caf::expected<std::shared_ptr<tls_context>>
  load(const std::string& ca, const std::string& cert, const std::string& key,
       bool server);

  ~tls_context();

  ssl_ctx_st* native() const {
    return ctx_;
  }

  bool server() const {
    return server_;
  }

private:
  tls_context(ssl_ctx_st* ctx, bool server) : ctx_(ctx), server_(server) {
  }

  ssl_ctx_st* ctx_;
  bool server_;
};

/// One connection's TLS: ciphertext in from the socket, plaintext out to
/// the reader, plaintext in from the writer, ciphertext out to the socket.
class tls_stream {
public:
  explicit tls_stream(std::shared_ptr<tls_context> ctx);
  ~tls_stream();
  tls_stream(const tls_stream&) = delete;
  tls_stream& operator=(const tls_stream&) = delete;

  /// Takes bytes read from the socket; appends what they decrypt to
  /// `plain`. False on a failed handshake or a bad record (see error()).
  bool feed(std::string_view cipher, std::string& plain);

  /// Encrypts `plain`, held back until the handshake is done.
  bool write(std::string_view plain);

  /// Moves the bytes to send to the socket (handshake records, alerts,
  /// encrypted data) into `out`.
  void drain(std::string& out);

  bool established() const {
    return established_;
  }

  const std::string& error() const {
    return error_;
  }

private:
  bool step();
  bool fail(const char* what);

  std::shared_ptr<tls_context> ctx_;
  ssl_st* ssl_ = nullptr;
  std::string held_; // plaintext written before the handshake ended
  bool established_ = false;
  std::string error_;
};

} // namespace rmq
