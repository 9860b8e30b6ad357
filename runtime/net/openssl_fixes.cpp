#include "runtime/net/openssl_fixes.hpp"

#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <map>
#include <mutex>
#include <string>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "runtime/net/connection_guard.hpp"

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
  auto r = f(ssl, buf, num);
  // The BASP frames inside, for the guard (runtime/net/connection_guard.hpp).
  if (r > 0
      && !rmq::connection_guard::on_tls_bytes(SSL_get_fd(ssl), buf,
                                              static_cast<size_t>(r)))
    return 0;
  return r;
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

// 3. CAF's openssl module builds an SSL_CTX for every connection and loads
// the certificate chain, the key and the CA file into it from disk each
// time: three files opened per accepted connection. With descriptors used
// up by idle connections the load failed and CAF threw ("cannot load
// certificate"), aborting the node. Each file is loaded once, into a
// template context, and every later context gets the same objects.
namespace {

struct tls_files {
  std::mutex mtx;
  std::map<std::string, SSL_CTX*> chains; // path -> template
  std::map<std::string, SSL_CTX*> keys;
  std::map<std::string, SSL_CTX*> cas;
};

tls_files& cache() {
  static tls_files* x = new tls_files; // never freed: used until exit
  return *x;
}

// The template for `path` in `m`, loading it with `load` on first use;
// null when the load fails (the caller then reports it as OpenSSL would).
template <class Load>
SSL_CTX* template_for(std::map<std::string, SSL_CTX*>& m,
                      const std::string& path, SSL_CTX* like, Load load) {
  if (auto i = m.find(path); i != m.end())
    return i->second;
  auto tmpl = SSL_CTX_new(TLS_method());
  if (tmpl == nullptr)
    return nullptr;
  // The key may need the caller's passphrase callback.
  SSL_CTX_set_default_passwd_cb(tmpl, SSL_CTX_get_default_passwd_cb(like));
  SSL_CTX_set_default_passwd_cb_userdata(
    tmpl, SSL_CTX_get_default_passwd_cb_userdata(like));
  if (load(tmpl) != 1) {
    SSL_CTX_free(tmpl);
    return nullptr;
  }
  m.emplace(path, tmpl);
  return tmpl;
}

} // namespace

extern "C" {

int SSL_CTX_use_certificate_chain_file(SSL_CTX* ctx, const char* file) {
  static auto f = real<int (*)(SSL_CTX*, const char*)>(
    "SSL_CTX_use_certificate_chain_file");
  auto& c = cache();
  std::lock_guard<std::mutex> guard{c.mtx};
  auto tmpl = template_for(c.chains, file, ctx,
                           [&](SSL_CTX* t) { return f(t, file); });
  if (tmpl == nullptr)
    return f(ctx, file); // the same failure, with OpenSSL's error queue
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(tmpl, &chain);
  if (SSL_CTX_use_certificate(ctx, SSL_CTX_get0_certificate(tmpl)) != 1
      || SSL_CTX_set1_chain(ctx, chain) != 1)
    return 0;
  return 1;
}

int SSL_CTX_use_PrivateKey_file(SSL_CTX* ctx, const char* file, int type) {
  static auto f
    = real<int (*)(SSL_CTX*, const char*, int)>("SSL_CTX_use_PrivateKey_file");
  auto& c = cache();
  std::lock_guard<std::mutex> guard{c.mtx};
  auto key = std::string{file} + "#" + std::to_string(type);
  auto tmpl = template_for(c.keys, key, ctx,
                           [&](SSL_CTX* t) { return f(t, file, type); });
  if (tmpl == nullptr)
    return f(ctx, file, type);
  return SSL_CTX_use_PrivateKey(ctx, SSL_CTX_get0_privatekey(tmpl));
}

int SSL_CTX_load_verify_locations(SSL_CTX* ctx, const char* cafile,
                                  const char* capath) {
  static auto f = real<int (*)(SSL_CTX*, const char*, const char*)>(
    "SSL_CTX_load_verify_locations");
  // A CA folder is looked up per certificate anyway: left as it is.
  if (cafile == nullptr || capath != nullptr)
    return f(ctx, cafile, capath);
  auto& c = cache();
  std::lock_guard<std::mutex> guard{c.mtx};
  auto tmpl = template_for(c.cas, cafile, ctx,
                           [&](SSL_CTX* t) { return f(t, cafile, nullptr); });
  if (tmpl == nullptr)
    return f(ctx, cafile, capath);
  auto objs = X509_STORE_get0_objects(SSL_CTX_get_cert_store(tmpl));
  auto store = SSL_CTX_get_cert_store(ctx);
  for (int i = 0; i < sk_X509_OBJECT_num(objs); ++i) {
    auto obj = sk_X509_OBJECT_value(objs, i);
    if (auto x = X509_OBJECT_get0_X509(obj))
      X509_STORE_add_cert(store, x); // takes its own reference
  }
  return 1;
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
