#include "runtime/process/node_config.hpp"

#include <chrono>
#include <memory>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "caf/io/middleman.hpp"
#include "caf/openssl/manager.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/message_types.hpp"
#include "runtime/net/openssl_fixes.hpp"
#include "runtime/process/option_parser.hpp"

namespace rmq {

namespace {

std::string last_ssl_error() {
  char buf[256] = "unknown error";
  if (auto code = ERR_get_error())
    ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// Loads the files the way caf::openssl::session does, once, so that a
// wrong path is a clear startup error instead of an exception later.
std::string check_tls_files(const caf::actor_system_config& cfg) {
  if (cfg.openssl_certificate.empty() || cfg.openssl_key.empty()
      || cfg.openssl_cafile.empty())
    return "TLS needs openssl.certificate, openssl.key and openssl.cafile";
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx{
    SSL_CTX_new(TLS_method()), SSL_CTX_free};
  if (!ctx)
    return "cannot create a TLS context: " + last_ssl_error();
  if (SSL_CTX_use_certificate_chain_file(ctx.get(),
                                         cfg.openssl_certificate.c_str())
      != 1)
    return "cannot load certificate '" + cfg.openssl_certificate
           + "': " + last_ssl_error();
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), cfg.openssl_key.c_str(),
                                  SSL_FILETYPE_PEM)
      != 1)
    return "cannot load private key '" + cfg.openssl_key
           + "': " + last_ssl_error();
  if (SSL_CTX_check_private_key(ctx.get()) != 1)
    return "key '" + cfg.openssl_key + "' does not match certificate '"
           + cfg.openssl_certificate + "'";
  if (SSL_CTX_load_verify_locations(ctx.get(), cfg.openssl_cafile.c_str(),
                                    nullptr)
      != 1)
    return "cannot load CA file '" + cfg.openssl_cafile
           + "': " + last_ssl_error();
  return {};
}

} // namespace

node_config::node_config() {
  register_message_types(*this);
  add_error_category(errc_category, render_error);
  apply_tuned_defaults();
  opt_group{custom_options_, "global"}.add(
    tls_dir, "tls-dir",
    "mutual TLS with ca.pem, cert.pem, key.pem from this directory");
}

void node_config::apply_tuned_defaults() {
  set("scheduler.policy", caf::atom("sharing"));
  set("scheduler.max-threads", size_t{1});
  set("middleman.workers", size_t{0});
  // At most 100 messages per actor turn (CAF's default: no bound), so one
  // actor with a long mailbox cannot hold the scheduler thread: a process
  // that produces at full speed kept its push consumer waiting for
  // seconds behind the producer's thousands of queued sends
  // (docs/benchmarks.md, "e2e").
  set("scheduler.max-throughput", size_t{100});
  // Debian's CAF compiles logging out; a CAF built with logging would
  // otherwise write log files into the working directory.
  set("logger.file-verbosity", caf::atom("quiet"));
  // A peer whose host or link is lost sends no FIN: without heartbeats
  // the connection looks alive until TCP gives up (minutes), requests on
  // it time out one by one, and a reconnect gets the same dead connection
  // back. Every node sends one each second and drops a connection silent
  // for 15 s (RocketMQ's channels: idle 120 s; its HA: 20 s), so a slave
  // reconnects to a master whose link came back (docs/replication.md,
  // "Copying").
  set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds{1}});
  set("middleman.connection-timeout", caf::timespan{std::chrono::seconds{15}});
}

caf::error node_config::parse_command_line(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  std::vector<const caf::config_option*> cleared;
  auto err = parse(normalize_args(args, custom_options_, nullptr, &cleared));
  // After the config file: the command line wins.
  if (!err)
    clear_flags(cleared);
  return err;
}

bool node_config::tls() const {
  return !tls_dir.empty() || !openssl_certificate.empty()
         || !openssl_key.empty() || !openssl_cafile.empty()
         || !openssl_capath.empty();
}

std::string node_config::load_network() {
  load<caf::io::middleman>();
  if (!tls())
    return {};
  if (!tls_dir.empty()) {
    openssl_cafile = tls_dir + "/ca.pem";
    openssl_certificate = tls_dir + "/cert.pem";
    openssl_key = tls_dir + "/key.pem";
  }
  if (auto why = check_tls_files(*this); !why.empty())
    return why;
  if (!openssl_fixes_linked())
    return "internal error: the OpenSSL error-queue fix is not linked in "
           "(runtime/net/openssl_fixes.hpp)";
  load<caf::openssl::manager>();
  return {};
}

} // namespace rmq
