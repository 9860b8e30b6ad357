// Checks every NameServer request makes before it reaches a table
// (RocketMQ's processors check little; every bad field here is a clear
// invalid_parameter error instead of a half-applied write).
#pragma once

#include <cstdint>
#include <string>

#include "caf/error.hpp"

#include "messages/namesrv/namesrv.hpp"

namespace rmq {

/// Cluster and broker names, a non-negative id and a host:port address.
caf::error check_broker(const std::string& cluster, const std::string& name,
                        const std::string& addr, int64_t id);

/// Namespace and key of a KV read or delete (puts are checked by the KV
/// table itself), so a malformed name is invalid_parameter rather than
/// query_not_found.
caf::error check_kv(const std::string& name_space, const std::string& key);

/// The broker, its HA and filter server addresses, and each topic config.
caf::error check_registration(const register_broker_request& req);

/// The topic and each queue data (broker name, perm, queue counts).
caf::error check_register_topic(const register_topic_request& req);

} // namespace rmq
