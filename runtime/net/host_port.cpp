#include "runtime/net/host_port.hpp"

#include <sstream>

namespace rmq {

std::optional<uint16_t> parse_port(const std::string& text, bool allow_zero) {
  if (text.empty() || text.size() > 5
      || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  auto value = std::stoul(text);
  if ((value == 0 && !allow_zero) || value > 65535)
    return std::nullopt;
  return static_cast<uint16_t>(value);
}

namespace {

// A host name, an IPv4 address or a bracketed IPv6 one: anything else (a
// ',' or a space from "a:1, b:2") would pass as a host and never connect.
bool plausible_host(const std::string& host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    return host.find_first_not_of("0123456789abcdefABCDEF:.", 1)
           == host.size() - 1;
  return host.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
         == std::string::npos;
}

std::string trimmed(const std::string& x) {
  auto b = x.find_first_not_of(" \t");
  if (b == std::string::npos)
    return {};
  return x.substr(b, x.find_last_not_of(" \t") - b + 1);
}

} // namespace

std::optional<host_port> parse_host_port(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0
      || !plausible_host(text.substr(0, colon)))
    return std::nullopt;
  auto port = parse_port(text.substr(colon + 1));
  if (!port)
    return std::nullopt;
  return host_port{text.substr(0, colon), *port};
}

std::optional<std::vector<host_port>>
parse_host_port_list(const std::string& text) {
  std::vector<host_port> out;
  std::istringstream in{text};
  std::string entry;
  while (std::getline(in, entry, ';')) {
    // "a:1; b:2" means what it says.
    entry = trimmed(entry);
    if (entry.empty())
      continue;
    auto addr = parse_host_port(entry);
    if (!addr)
      return std::nullopt;
    out.push_back(std::move(*addr));
  }
  if (out.empty())
    return std::nullopt;
  return out;
}

std::string join_host_ports(const std::vector<host_port>& xs) {
  std::string out;
  for (auto& x : xs)
    out += (out.empty() ? "" : ";") + x.to_string();
  return out;
}

} // namespace rmq
