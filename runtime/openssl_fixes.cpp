#include "runtime/openssl_fixes.hpp"

#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace {

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void set_nodelay(SSL* ssl) {
  int fd = SSL_get_fd(ssl);
  int one = 1;
  if (fd >= 0)
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

} // namespace

// The names are OpenSSL's, so these replace its functions for every caller
// in the process; they add only ERR_clear_error() and TCP_NODELAY.
extern "C" {

int SSL_read(SSL* ssl, void* buf, int num) {
  static auto f = real<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return f(ssl, buf, num);
}

int SSL_write(SSL* ssl, const void* buf, int num) {
  static auto f = real<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return f(ssl, buf, num);
}

int SSL_accept(SSL* ssl) {
  static auto f = real<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  set_nodelay(ssl);
  return f(ssl);
}

int SSL_connect(SSL* ssl) {
  static auto f = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  set_nodelay(ssl);
  return f(ssl);
}

} // extern "C"

namespace rmq {

bool openssl_fixes_linked() {
  // dlsym(RTLD_DEFAULT) finds the definition calls from libcaf_openssl bind
  // to: ours when the executable exports it.
  auto found = dlsym(RTLD_DEFAULT, "SSL_accept");
  return found == reinterpret_cast<void*>(&SSL_accept);
}

} // namespace rmq
