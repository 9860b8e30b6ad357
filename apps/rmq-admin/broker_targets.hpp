// How a broker command finds its brokers, as mqadmin's CommandUtil does:
// through the first NameServer of the list. `-c CLUSTER` is every master
// (broker id 0) of the cluster from the cluster info, `-b ADDR` that
// broker; a topic's brokers are the masters of its route.
#pragma once

#include <string>
#include <vector>

#include "caf/expected.hpp"

#include "apps/rmq-admin/broker_client.hpp"
#include "apps/rmq-admin/commands.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq::admin {

/// One broker to talk to.
struct broker_target {
  std::string broker_name; // empty when only the address is known
  std::string addr;
};

/// Every master of `cluster` (or, with `with_slaves`, every member),
/// sorted by broker name and id; broker_not_found for an unknown cluster.
caf::expected<std::vector<broker_target>>
cluster_brokers(const command_env& env, const std::string& cluster,
                bool with_slaves = false);

/// The route of `topic` (topic_not_exist if the NameServer has none).
caf::expected<topic_route_data> topic_route(const command_env& env,
                                            const std::string& topic);

/// The masters serving `topic`, sorted by broker name.
caf::expected<std::vector<broker_target>>
topic_brokers(const command_env& env, const std::string& topic);

/// The CAF address of the broker whose remoting address is `addr` (an
/// offsetMsgId's store host), or `addr` itself when none is.
std::string caf_addr_of(const command_env& env, const std::string& addr);

/// The broker group (name, members by id) that has a member at `addr`
/// (broker_not_found if no cluster has it).
caf::expected<broker_data> broker_group_of(const command_env& env,
                                           const std::string& addr);

/// The broker name registered for the address `addr` (broker_not_found if
/// no cluster has it).
caf::expected<std::string> broker_name_of(const command_env& env,
                                          const std::string& addr);

/// The master address of broker `name` in `route`; broker_not_found if the
/// route has no such master.
caf::expected<std::string> master_of(const topic_route_data& route,
                                     const std::string& name);

/// `err` from the broker at `addr`, its code kept (rmq errors) and the
/// address named: "rmq::invalid_parameter: broker ADDR: perm 9 ...".
/// Other errors (timeouts, lost connections) become service_not_available.
caf::error at_broker(const std::string& addr, const caf::error& err);

/// Prints "rmq-admin: <command>: <why>" to stderr; returns 2 (a usage
/// error).
int usage_fail(const command_env& env, const std::string& why);

/// Whether exactly one of `-b` and `-c` is given; prints a usage error
/// (see usage_fail) otherwise.
bool one_of_b_or_c(const command_env& env);

/// The brokers `-b ADDR` or `-c CLUSTER` names (check one_of_b_or_c
/// first): that address, or the cluster's masters (`with_slaves`: every
/// member, as for cluster_brokers).
caf::expected<std::vector<broker_target>>
targets_from_flags(const command_env& env, bool with_slaves = false);

/// Reads option `key` as a bool (Java's Boolean.parseBoolean: "true" in
/// any case is true, anything else false); `fallback` when not given.
bool bool_opt(const command_env& env, char key, bool fallback);

/// Reads option `key` as an integer into `out` (unchanged when not
/// given); false, after printing a usage error, if it is not a number.
bool int_opt(const command_env& env, char key, int64_t& out);

} // namespace rmq::admin
