// RocketMQ's client id (ClientConfig.buildMQClientId): `ip@instanceName`,
// where the instance name "DEFAULT" becomes `pid#nanotime`
// (changeInstanceNameToPID, RocketMQ 5), and the local IPv4 a client
// announces (NetworkUtil.getLocalInetAddress).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rmq {

/// RocketMQ's default instance name, replaced by `pid#nanotime`.
constexpr const char* default_instance_name = "DEFAULT";

/// Returns `name`, or `pid#nanotime` for "DEFAULT".
std::string effective_instance_name(const std::string& name, int64_t pid,
                                    int64_t nanotime);

/// Returns `ip@instance_name`.
std::string build_client_id(const std::string& ip,
                            const std::string& instance_name);

/// Whether `ip` (dotted IPv4) is in 10/8, 127/8, 172.16/12 or 192.168/16
/// (RocketMQ UtilAll.isInternalIP).
bool is_internal_ipv4(const std::string& ip);

/// RocketMQ's choice among a host's addresses: loopback skipped, the first
/// external one, else the last internal one, else 127.0.0.1.
std::string choose_local_ipv4(const std::vector<std::string>& addrs);

/// The IPv4 addresses of this host's interfaces that are up, in the
/// order the system lists them.
std::vector<std::string> local_ipv4_addresses();

/// `choose_local_ipv4(local_ipv4_addresses())`.
std::string local_ipv4();

/// The id of a new client instance: `client_ip` (empty: local_ipv4()),
/// '@', and the instance name with "DEFAULT" made `pid#nanotime` from this
/// process's id and the steady clock.
std::string make_client_id(const std::string& client_ip,
                           const std::string& instance_name);

} // namespace rmq
