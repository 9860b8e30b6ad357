// Text that rmq-admin prints, shaped like mqadmin's output: RocketMQ's
// camelCase JSON for route data, fixed-width tables for cluster lists.
#pragma once

#include <string>
#include <vector>

#include "messages/namesrv/namesrv.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq::admin {

/// TopicRouteData as mqadmin topicRoute prints it (pretty JSON, camelCase;
/// orderTopicConf only when set, as fastjson drops nulls).
std::string format_topic_route(const topic_route_data& route);

/// The #Cluster Name / #Broker Name / #BID / #Addr table of clusterList,
/// one row per broker address, sorted by cluster, broker name and id.
std::string format_cluster_list(const cluster_info& info);

/// BrokerMemberGroup as camelCase JSON.
std::string format_member_group(const broker_member_group& group);

/// One topic per line.
std::string format_topic_list(const topic_list& topics);

/// "key=value" lines of one KV namespace.
std::string format_kv_table(const kv_table& table);

/// One NameServer's block of mqadmin getNamesrvConfig: a
/// "============addr============" line, then "%-50s=  %s" per property.
std::string format_namesrv_config(const std::string& server,
                                  const namesrv_config& cfg);

/// mqadmin updateNamesrvConfig's answer: "update name server config
/// success![a, b]" and "key : value" lines (Java's List.toString).
std::string
format_namesrv_config_updated(const std::vector<std::string>& servers,
                              const std::string& key, const std::string& value);

/// Re-indents JSON text; returns the input unchanged if it does not parse.
std::string pretty_json(const std::string& text);

} // namespace rmq::admin
