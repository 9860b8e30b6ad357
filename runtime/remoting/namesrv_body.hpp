// The bodies of the NameServer's remoting answers in RocketMQ's JSON
// (TopicRouteData, QueueData, BrokerData, ClusterInfo, TopicList, KVTable,
// GetBrokerMemberGroupResponseBody) and its config as Java properties
// text. JSON is standard: broker ids are quoted object keys, as RocketMQ
// NameServers write them since 4.9.4 (docs/remoting.md, "Routes").
// rmq-admin prints routes the same way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/namesrv/namesrv.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq::remoting {

/// brokerAddrs: broker id (as a quoted key) to address.
nlohmann::json broker_addrs_json(const std::map<int64_t, std::string>& addrs);

nlohmann::json to_json(const queue_data& qd);

nlohmann::json to_json(const broker_data& bd);

nlohmann::json to_json(const topic_route_data& route);

/// A route as a remoting client must see it: each broker's remoting
/// addresses in place of its CAF ones. A broker without any is left out,
/// with its queues, so that no client picks a queue it cannot reach.
topic_route_data remoting_view(topic_route_data route);

/// Cluster info with remoting addresses; brokers without one left out.
cluster_info remoting_view(cluster_info info);

/// The remoting address of the broker whose CAF address is `addr`, and
/// the other way round; empty when no broker of `info` has it.
std::string remoting_addr_of(const cluster_info& info, const std::string& addr);
std::string caf_addr_of(const cluster_info& info, const std::string& addr);

/// A route from a body (REGISTER_TOPIC_IN_NAMESRV); false when it is no
/// route.
bool from_json(const std::string& text, topic_route_data& out);

/// Fills the topics, data version and filter servers of `out` from a
/// RegisterBrokerBody (REGISTER_BROKER's body, uncompressed); false and
/// `err` set when it is not one.
bool register_body_from_json(const std::string& text,
                             register_broker_request& out, std::string& err);

/// TopicConfigSerializeWrapper: topicConfigTable and dataVersion (inside
/// a registration, and GET_ALL_TOPIC_CONFIG's answer).
nlohmann::json
topic_config_wrapper_json(const std::vector<topic_config>& topics,
                          const data_version& version);

/// RegisterBrokerBody as a RocketMQ broker writes it (tests, and a broker
/// of ours registering over remoting).
nlohmann::json register_body_json(const register_broker_request& req);

/// DataVersion.
nlohmann::json to_json(const data_version& v);

/// ClusterInfo: brokerAddrTable and clusterAddrTable.
nlohmann::json to_json(const cluster_info& info);

/// TopicList: topicList, and brokerAddr when not empty.
nlohmann::json topic_list_json(const std::vector<std::string>& topics,
                               const std::string& broker_addr = {});

/// KVTable: {"table": {...}}.
nlohmann::json kv_table_json(const std::map<std::string, std::string>& kv);

/// GetBrokerMemberGroupResponseBody.
nlohmann::json to_json(const broker_member_group& group);

/// Java properties text ("k=v" lines), as MixAll.properties2String writes
/// it.
std::string properties_text(const std::map<std::string, std::string>& kv);

/// Parses Java properties text: `k=v` or `k:v` lines, blanks and `#`/`!`
/// comments skipped, keys and values trimmed.
std::map<std::string, std::string>
parse_properties_text(const std::string& text);

} // namespace rmq::remoting
