#include "tests/system/namesrv_system_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "caf/io/basp/header.hpp"

#include "messages/common/errors.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/free_port.hpp"

namespace rmq::test {

namespace {

node_config& with_network(node_config& cfg, const std::string& tls_dir) {
  cfg.tls_dir = tls_dir;
  auto why = cfg.load_network();
  REQUIRE_MESSAGE(why.empty(), why);
  return cfg;
}

} // namespace

namesrv_process start_namesrv(const std::string& kv_path) {
  namesrv_launch how;
  how.kv_path = kv_path;
  return start_namesrv(how);
}

namesrv_process start_namesrv(const namesrv_launch& how) {
  namesrv_process result;
  std::vector<std::string> argv{bin_dir() + "/rmq-node",
                                "--role=namesrv",
                                "--host=" + how.host,
                                "--port=" + std::to_string(how.port),
                                "--kv-config-path=" + how.kv_path,
                                "--log-level=warn"};
  if (!how.tls_dir.empty())
    argv.push_back("--tls-dir=" + how.tls_dir);
  argv.push_back("--remoting-port=0");
  argv.insert(argv.end(), how.extra.begin(), how.extra.end());
  argv.insert(argv.begin(), how.prefix.begin(), how.prefix.end());
  if (how.log_to_stdout)
    argv.insert(argv.begin(), {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"});
  result.proc = std::make_unique<child_process>(std::move(argv));
  std::string rest;
  result.host = how.host;
  REQUIRE(
    result.proc->wait_for("namesrv listening on " + how.host + ":", rest));
  result.port = static_cast<uint16_t>(std::stoi(rest));
  REQUIRE(result.proc->wait_for("namesrv remoting on " + how.host + ":", rest));
  result.remoting_port = static_cast<uint16_t>(std::stoi(rest));
  return result;
}

std::string join_addrs(const std::vector<std::string>& addrs) {
  std::string out;
  for (auto& addr : addrs)
    out += (out.empty() ? "" : ";") + addr;
  return out;
}

std::unique_ptr<child_process>
start_broker(const std::vector<std::string>& addrs,
             const std::string& broker_name, const std::string& topics,
             const std::string& tls_dir) {
  std::vector<std::string> argv{bin_dir() + "/standin-broker",
                                "--namesrv=" + join_addrs(addrs),
                                "--broker-name=" + broker_name,
                                "--topics=" + topics,
                                "--queues=4",
                                "--heartbeat-interval-ms=1000"};
  if (!tls_dir.empty())
    argv.push_back("--tls-dir=" + tls_dir);
  auto proc = std::make_unique<child_process>(std::move(argv));
  std::set<std::string> registered;
  std::string addr;
  while (registered.size() < addrs.size()) {
    REQUIRE(proc->wait_for("registered with ", addr));
    registered.insert(addr);
  }
  return proc;
}

void make_dev_certs(const std::string& dir,
                    const std::vector<std::string>& names) {
  std::vector<std::string> argv{
    source_dir() + "/apps/rmq-node/make-dev-certs.sh", dir};
  argv.insert(argv.end(), names.begin(), names.end());
  std::string out;
  REQUIRE_MESSAGE(run_command(argv, out) == 0, out);
}

long status_kib(pid_t pid, const std::string& field) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string key;
  while (in >> key) {
    if (key == field + ":") {
      long kib = -1;
      in >> kib;
      return kib;
    }
    in.ignore(4096, '\n');
  }
  return -1;
}

long rss_kib(pid_t pid) {
  return status_kib(pid, "VmRSS");
}

admin_run run_admin(const std::vector<std::string>& args) {
  // sh merges stderr into the pipe, so tests see the error messages too.
  std::string cmd = "exec '" + bin_dir() + "/rmq-admin'";
  for (auto& arg : args)
    cmd += " '" + arg + "'";
  cmd += " 2>&1";
  admin_run result;
  result.rc = run_command({"/bin/sh", "-c", cmd}, result.out);
  return result;
}

uint16_t unused_port() {
  auto port = pick_free_port("127.0.0.1");
  REQUIRE_MESSAGE(port, describe(port.error()));
  return *port;
}

int raw_connect(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void raw_send(int fd, const std::vector<uint8_t>& bytes) {
  // MSG_NOSIGNAL: the node may close first; that must not kill the test.
  size_t off = 0;
  while (off < bytes.size()) {
    auto n = send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0)
      return;
    off += static_cast<size_t>(n);
  }
}

bool wait_closed_by_peer(int fd, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
      continue;
    auto n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0)
      return true; // EOF or reset
  }
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 gen{seed};
  std::vector<uint8_t> out(n);
  for (auto& x : out)
    x = static_cast<uint8_t>(gen());
  if (!out.empty() && out[0] <= 0x06)
    out[0] = static_cast<uint8_t>(0x07 + out[0]);
  return out;
}

std::vector<std::vector<uint8_t>> garbage_payloads(uint32_t seed) {
  return {random_bytes(64, seed),
          random_bytes(100'000, seed + 1),
          std::vector<uint8_t>(4096, 0xFF),
          std::vector<uint8_t>(4096, 0x00),
          {'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1',
           '\r', '\n', '\r', '\n'}};
}

std::vector<uint8_t> oversize_basp_header() {
  std::vector<uint8_t> out(caf::io::basp::header_size, 0);
  out[0] = 0x00; // server_handshake
  for (size_t i = 4; i < 8; ++i)
    out[i] = 0xFF; // payload_len = 0xFFFFFFFF
  return out;
}

long rss_growth_from_oversize_headers(child_process& proc, uint16_t port) {
  auto before = rss_kib(proc.pid());
  REQUIRE(before > 0);
  // Three at once is what stalls a plain node.
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) {
    int fd = raw_connect(port);
    REQUIRE(fd >= 0);
    raw_send(fd, oversize_basp_header());
    fds.push_back(fd);
  }
  for (int fd : fds) {
    CHECK(wait_closed_by_peer(fd, std::chrono::seconds{10}));
    close(fd);
  }
  auto after = rss_kib(proc.pid());
  MESSAGE("VmRSS before " << before << " KiB, after " << after << " KiB");
  return after - before;
}

remote_client::remote_client(const std::string& tls_dir)
  : sys(with_network(cfg, tls_dir)), self(sys) {
  // nop
}

caf::expected<namesrv_actor> remote_client::try_connect(uint16_t port) {
  // Bounded: a hung handshake must fail the test, not block it.
  return rmq::connect<namesrv_actor>(self, host_port{"127.0.0.1", port},
                                     std::chrono::seconds{5});
}

namesrv_actor remote_client::connect(uint16_t port) {
  auto hdl = try_connect(port);
  return hdl ? *hdl : namesrv_actor{};
}

bool remote_client::knows_broker(const namesrv_actor& hdl,
                                 const std::string& broker_name) {
  auto info = ask<cluster_info>(hdl, get_broker_cluster_info_request{});
  return info && info->broker_addr_table.count(broker_name) > 0;
}

} // namespace rmq::test
