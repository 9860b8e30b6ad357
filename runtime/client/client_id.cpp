#include "runtime/client/client_id.hpp"

#include <chrono>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

namespace rmq {

std::string effective_instance_name(const std::string& name, int64_t pid,
                                    int64_t nanotime) {
  if (name != default_instance_name)
    return name;
  return std::to_string(pid) + "#" + std::to_string(nanotime);
}

std::string build_client_id(const std::string& ip,
                            const std::string& instance_name) {
  return ip + "@" + instance_name;
}

namespace {

bool parse_ipv4(const std::string& ip, uint8_t (&out)[4]) {
  in_addr a{};
  if (inet_pton(AF_INET, ip.c_str(), &a) != 1)
    return false;
  auto bytes = reinterpret_cast<const uint8_t*>(&a.s_addr);
  for (int i = 0; i < 4; ++i)
    out[i] = bytes[i];
  return true;
}

} // namespace

bool is_internal_ipv4(const std::string& ip) {
  uint8_t b[4];
  if (!parse_ipv4(ip, b))
    return false;
  return b[0] == 10 || b[0] == 127 || (b[0] == 172 && b[1] >= 16 && b[1] <= 31)
         || (b[0] == 192 && b[1] == 168);
}

std::string choose_local_ipv4(const std::vector<std::string>& addrs) {
  std::string last_internal;
  for (auto& ip : addrs) {
    uint8_t b[4];
    if (!parse_ipv4(ip, b) || b[0] == 127)
      continue;
    if (!is_internal_ipv4(ip))
      return ip;
    last_internal = ip;
  }
  return last_internal.empty() ? "127.0.0.1" : last_internal;
}

std::vector<std::string> local_ipv4_addresses() {
  std::vector<std::string> result;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0)
    return result;
  for (auto* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET
        || (i->ifa_flags & IFF_UP) == 0)
      continue;
    char buf[INET_ADDRSTRLEN];
    auto* sin = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
    if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof(buf)) != nullptr)
      result.emplace_back(buf);
  }
  freeifaddrs(list);
  return result;
}

std::string local_ipv4() {
  return choose_local_ipv4(local_ipv4_addresses());
}

std::string make_client_id(const std::string& client_ip,
                           const std::string& instance_name) {
  // System.nanoTime has an arbitrary origin too: it only tells two
  // instances of one process apart.
  auto nanotime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  auto ip = client_ip.empty() ? local_ipv4() : client_ip;
  return build_client_id(
    ip, effective_instance_name(instance_name, static_cast<int64_t>(getpid()),
                                nanotime));
}

} // namespace rmq
