#include "tests/support/net_hosts.hpp"

#include <unistd.h>

#include <doctest/doctest.h>

#include "tests/support/child_process.hpp"

namespace rmq::test {

namespace {

// Runs `ip ARGS...`; its output when it fails.
int run_ip(std::vector<std::string> args, std::string* out = nullptr) {
  // Through sh, so that the error (stderr) is in the output.
  std::string cmd = "exec /usr/sbin/ip";
  for (auto& a : args)
    cmd += " " + a;
  cmd += " 2>&1";
  std::string text;
  auto rc = run_command({"/bin/sh", "-c", cmd}, text);
  if (out != nullptr)
    *out = text;
  return rc;
}

void must(std::vector<std::string> args) {
  std::string out;
  auto line = std::string{"ip"};
  for (auto& a : args)
    line += " " + a;
  REQUIRE_MESSAGE(run_ip(std::move(args), &out) == 0, line << ": " << out);
}

} // namespace

std::string net_hosts::unavailable() {
  if (geteuid() != 0)
    return "not root: network namespaces need CAP_SYS_ADMIN";
  if (access("/usr/sbin/ip", X_OK) != 0)
    return "no /usr/sbin/ip (iproute2)";
  auto probe = "rmqprobe" + std::to_string(getpid());
  std::string out;
  if (run_ip({"netns", "add", probe}, &out) != 0)
    return "ip netns add refused: " + out;
  run_ip({"netns", "del", probe});
  return {};
}

net_hosts::net_hosts(int n) : tag_(std::to_string(getpid() % 100000)), n_(n) {
  auto hub = "rmq" + tag_ + "hub";
  must({"netns", "add", hub});
  must({"-n", hub, "link", "add", "br0", "type", "bridge"});
  must({"-n", hub, "link", "set", "br0", "up"});
  for (int i = 0; i < n; ++i) {
    must({"netns", "add", ns(i)});
    must({"-n", ns(i), "link", "set", "lo", "up"});
    // Made in the host's namespace, its peer moved to the hub.
    must({"-n", ns(i), "link", "add", "eth0", "type", "veth", "peer", "name",
          hub_end(i)});
    must({"-n", ns(i), "link", "set", hub_end(i), "netns", hub});
    must({"-n", hub, "link", "set", hub_end(i), "master", "br0"});
    must({"-n", hub, "link", "set", hub_end(i), "up"});
    must({"-n", ns(i), "addr", "add", ip(i) + "/24", "dev", "eth0"});
    must({"-n", ns(i), "link", "set", "eth0", "up"});
  }
}

net_hosts::~net_hosts() {
  for (int i = 0; i < n_; ++i)
    run_ip({"netns", "del", ns(i)});
  run_ip({"netns", "del", "rmq" + tag_ + "hub"});
}

std::string net_hosts::ip(int i) const {
  return "10.77.0." + std::to_string(i + 1);
}

std::vector<std::string> net_hosts::on(int i) const {
  return {"/usr/sbin/ip", "netns", "exec", ns(i)};
}

void net_hosts::cut(int i) {
  must({"-n", "rmq" + tag_ + "hub", "link", "set", hub_end(i), "down"});
}

void net_hosts::restore(int i) {
  must({"-n", "rmq" + tag_ + "hub", "link", "set", hub_end(i), "up"});
}

std::string net_hosts::ns(int i) const {
  return "rmq" + tag_ + "h" + std::to_string(i);
}

std::string net_hosts::hub_end(int i) const {
  // At most 15 characters (IFNAMSIZ).
  return "rq" + tag_ + "p" + std::to_string(i);
}

} // namespace rmq::test
