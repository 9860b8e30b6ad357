#include "runtime/net/tls_stream.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "messages/common/errors.hpp"

namespace rmq {

namespace {

std::string ssl_errors() {
  std::string out;
  while (auto code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string{buf};
  }
  return out.empty() ? "unknown TLS error" : out;
}

} // namespace

caf::expected<std::shared_ptr<tls_context>>
tls_context::load(const std::string& ca, const std::string& cert,
                  const std::string& key, bool server) {
  ERR_clear_error();
  auto ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx)
    return make_error(errc::system_error,
                      "cannot create a TLS context: " + ssl_errors());
  std::shared_ptr<tls_context> out{new tls_context{ctx, server}};
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1)
    return make_error(errc::system_error, "cannot load certificate '" + cert
                                            + "': " + ssl_errors());
  if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1
      || SSL_CTX_check_private_key(ctx) != 1)
    return make_error(errc::system_error,
                      "cannot load key '" + key + "': " + ssl_errors());
  if (SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) != 1)
    return make_error(errc::system_error,
                      "cannot load CA '" + ca + "': " + ssl_errors());
  // Mutual: a peer without a certificate of the cluster's CA is refused.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                     nullptr);
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  return out;
}

tls_context::~tls_context() {
  SSL_CTX_free(ctx_);
}

tls_stream::tls_stream(std::shared_ptr<tls_context> ctx)
  : ctx_(std::move(ctx)) {
  ssl_ = SSL_new(ctx_->native());
  if (!ssl_) {
    error_ = "cannot create a TLS session: " + ssl_errors();
    return;
  }
  // The SSL object owns both memory BIOs.
  SSL_set_bio(ssl_, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
  if (ctx_->server())
    SSL_set_accept_state(ssl_);
  else
    SSL_set_connect_state(ssl_);
  // A client speaks first: its hello is ready to drain at once.
  step();
}

tls_stream::~tls_stream() {
  if (ssl_)
    SSL_free(ssl_);
}

bool tls_stream::fail(const char* what) {
  if (error_.empty())
    error_ = std::string{what} + ": " + ssl_errors();
  return false;
}

// Advances the handshake; once done, sends what was held back.
bool tls_stream::step() {
  if (!ssl_ || !error_.empty())
    return false;
  if (!established_) {
    ERR_clear_error();
    auto r = SSL_do_handshake(ssl_);
    if (r != 1) {
      auto e = SSL_get_error(ssl_, r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return true;
      return fail("TLS handshake failed");
    }
    established_ = true;
  }
  if (!held_.empty()) {
    auto held = std::move(held_);
    held_.clear();
    return write(held);
  }
  return true;
}

bool tls_stream::feed(std::string_view cipher, std::string& plain) {
  if (!ssl_ || !error_.empty())
    return false;
  if (!cipher.empty()
      && BIO_write(SSL_get_rbio(ssl_), cipher.data(),
                   static_cast<int>(cipher.size()))
           <= 0)
    return fail("TLS input");
  if (!step())
    return false;
  if (!established_)
    return true;
  char buf[16 * 1024];
  while (true) {
    ERR_clear_error();
    auto n = SSL_read(ssl_, buf, sizeof buf);
    if (n > 0) {
      plain.append(buf, static_cast<size_t>(n));
      continue;
    }
    auto e = SSL_get_error(ssl_, n);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
      return true;
    if (e == SSL_ERROR_ZERO_RETURN) {
      error_ = "the peer closed TLS";
      return false;
    }
    return fail("TLS read failed");
  }
}

bool tls_stream::write(std::string_view plain) {
  if (!ssl_ || !error_.empty())
    return false;
  if (!established_) {
    held_.append(plain.data(), plain.size());
    return true;
  }
  while (!plain.empty()) {
    ERR_clear_error();
    auto n = SSL_write(ssl_, plain.data(), static_cast<int>(plain.size()));
    if (n <= 0)
      return fail("TLS write failed");
    plain.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void tls_stream::drain(std::string& out) {
  if (!ssl_)
    return;
  auto wbio = SSL_get_wbio(ssl_);
  char buf[16 * 1024];
  int n;
  while ((n = BIO_read(wbio, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
}

} // namespace rmq
