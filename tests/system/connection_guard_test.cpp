// Unauthenticated peers cannot stop a node (both roles, plain TCP and
// TLS): with an open-files limit of 256, 300 idle TCP connections (no
// certificate, nothing sent) leave the node running and serving the client
// it had; the idle ones are closed once the first-frame timeout passes,
// and then a new client is served again. A frame announcing 64 MiB closes
// its connection before it is read.
#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

constexpr int idle_peers = 300;

const std::vector<std::string> low_fd_limit{"/usr/bin/prlimit",
                                            "--nofile=256:256"};

const std::vector<std::string> guard_flags{"--first-frame-timeout-ms=1000"};

bool alive(child_process& proc) {
  return proc.wait(0ms) == -1;
}

// Opens `n` plain TCP connections that never send a byte.
std::vector<int> open_idle(uint16_t port, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i)
    if (auto fd = raw_connect(port); fd >= 0)
      fds.push_back(fd);
  return fds;
}

// Every idle connection is closed by the node (refused at once, or at the
// first-frame timeout); none is left open.
void check_all_closed(std::vector<int>& fds) {
  int closed = 0;
  for (int fd : fds) {
    closed += wait_closed_by_peer(fd, 15s) ? 1 : 0;
    ::close(fd);
  }
  CHECK_EQ(closed, static_cast<int>(fds.size()));
  fds.clear();
}

// Reads the node's log until a line contains `what`.
bool log_says(child_process& proc, const std::string& what) {
  std::string line;
  while (proc.read_line(line, 10s))
    if (line.find(what) != std::string::npos)
      return true;
  return false;
}

void flood_namesrv(const std::string& tls_dir, const std::string& client_tls) {
  namesrv_launch how;
  how.tls_dir = tls_dir;
  how.prefix = low_fd_limit;
  how.extra = guard_flags;
  how.log_to_stdout = true;
  auto ns = start_namesrv(how);
  remote_client client{client_tls};
  auto hdl = client.try_connect(ns.port);
  REQUIRE_MESSAGE(hdl, describe(hdl.error()));
  auto fds = open_idle(ns.port, idle_peers);
  MESSAGE("idle connections opened: " << fds.size());
  CHECK(alive(*ns.proc));
  // The client it had is served on.
  auto info = client.ask<cluster_info>(*hdl, get_broker_cluster_info_request{});
  CHECK_MESSAGE(info, describe(info.error()));
  check_all_closed(fds);
  CHECK(log_says(*ns.proc, "no first frame within 1000 ms"));
  CHECK(alive(*ns.proc));
  // Room again: a new client gets in.
  remote_client later{client_tls};
  auto again = later.try_connect(ns.port);
  REQUIRE_MESSAGE(again, describe(again.error()));
  CHECK(later.ask<cluster_info>(*again, get_broker_cluster_info_request{}));
  ns.proc->signal(SIGTERM);
  CHECK_EQ(ns.proc->wait(), 0);
}

void flood_broker(const std::string& tls_dir, const std::string& client_tls) {
  temp_dir dir;
  namesrv_launch nhow;
  nhow.tls_dir = tls_dir;
  auto ns = start_namesrv(nhow);
  auto how = one_broker(ns, dir.path() + "/store");
  how.tls_dir = tls_dir;
  how.prefix = low_fd_limit;
  how.extra.insert(how.extra.end(), guard_flags.begin(), guard_flags.end());
  how.log_to_stdout = true;
  auto broker = start_broker_node(how);
  remote_client client{client_tls};
  auto front = connect_broker(client, broker.port);
  create_topic(client, front, "TopicGuard", 1);
  auto fds = open_idle(broker.port, idle_peers);
  MESSAGE("idle connections opened: " << fds.size());
  CHECK(alive(*broker.proc));
  auto sent = send_plain(client, front, "TopicGuard", "during the flood");
  REQUIRE_MESSAGE(sent, describe(sent.error()));
  CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
  check_all_closed(fds);
  CHECK(broker.said("no first frame within 1000 ms"));
  CHECK(alive(*broker.proc));
  remote_client later{client_tls};
  auto front2 = connect_broker(later, broker.port);
  CHECK_EQ(pull_all(later, front2, "TopicGuard", 0),
           std::vector<std::string>{"during the flood"});
  broker.proc->signal(SIGTERM);
  CHECK_EQ(broker.proc->wait(), 0);
}

struct tls_fixture {
  temp_dir certs;
  tls_fixture() {
    make_dev_certs(certs.path(), {"node", "client"});
  }
};

} // namespace

TEST_SUITE("system.connection_guard") {
  TEST_CASE("a NameServer with 256 descriptors survives 300 idle peers") {
    flood_namesrv("", "");
  }

  TEST_CASE_FIXTURE(tls_fixture, "a TLS NameServer with 256 descriptors "
                                 "survives 300 idle peers") {
    flood_namesrv(certs.path() + "/node", certs.path() + "/client");
  }

  TEST_CASE("a broker with 256 descriptors survives 300 idle peers") {
    flood_broker("", "");
  }

  TEST_CASE_FIXTURE(tls_fixture, "a TLS broker with 256 descriptors "
                                 "survives 300 idle peers") {
    flood_broker(certs.path() + "/node", certs.path() + "/client");
  }

  TEST_CASE("a frame announcing 64 MiB is refused from its header") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    how.log_to_stdout = true;
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    auto before = status_kib(broker.proc->pid(), "VmHWM");
    REQUIRE_GT(before, 0);
    // A client_handshake announcing 64 MiB, and the first MiB of it.
    std::vector<uint8_t> frame(32, 0);
    frame[0] = 0x01;
    uint32_t len = 64u << 20;
    frame[4] = static_cast<uint8_t>(len >> 24);
    frame[5] = static_cast<uint8_t>(len >> 16);
    frame[6] = static_cast<uint8_t>(len >> 8);
    frame[7] = static_cast<uint8_t>(len);
    frame.resize(32 + (1u << 20), 'x');
    int fd = raw_connect(broker.port);
    REQUIRE_GE(fd, 0);
    raw_send(fd, frame);
    CHECK(wait_closed_by_peer(fd, 10s));
    ::close(fd);
    CHECK(broker.said("a frame of 67108864 bytes, over the limit"));
    auto after = status_kib(broker.proc->pid(), "VmHWM");
    MESSAGE("VmHWM before " << before << " KiB, after " << after << " KiB");
    CHECK_LT(after - before, 16 * 1024);
    // The broker serves on.
    create_topic(client, front, "TopicAfter", 1);
    auto sent = send_plain(client, front, "TopicAfter", "x");
    REQUIRE(sent);
    CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
  }
}
