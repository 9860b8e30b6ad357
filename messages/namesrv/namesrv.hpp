// Requests a NameServer answers and their results (RocketMQ RequestCode
// 100-327 and 901-904; headers in remoting/protocol/header/namesrv/). Each
// request is one struct, so the front actor's typed interface reads like
// RocketMQ's request code table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "caf/meta/type_name.hpp"

#include "messages/common/message_decl.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

/// Default silence after which a NameServer drops a broker (RocketMQ
/// BROKER_CHANNEL_EXPIRED_TIME).
constexpr int64_t default_broker_timeout_ms = 120'000;

/// REGISTER_BROKER (103): a broker announces itself and its topics.
struct register_broker_request {
  std::string cluster_name;
  std::string broker_addr;
  std::string broker_name;
  int64_t broker_id = master_id;
  std::string ha_server_addr;
  /// Where RocketMQ's remoting clients reach the broker (empty: they
  /// cannot); the NameServer hands it to them in place of broker_addr.
  std::string remoting_addr;
  std::string zone_name;
  /// Silence after which the broker is dropped; 0 = the NameServer default.
  int64_t heartbeat_timeout_ms = 0;
  bool enable_acting_master = false;
  data_version version;
  std::vector<topic_config> topics;
  /// False leaves the broker's filter servers untouched; true replaces them
  /// (an empty list removes them), as RocketMQ's null vs. empty list.
  bool has_filter_servers = false;
  std::vector<std::string> filter_server_list;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, register_broker_request& x) {
  return f(caf::meta::type_name("rmq.register_broker_request"), x.cluster_name,
           x.broker_addr, x.broker_name, x.broker_id, x.ha_server_addr,
           x.remoting_addr, x.zone_name, x.heartbeat_timeout_ms,
           x.enable_acting_master, x.version, x.topics, x.has_filter_servers,
           x.filter_server_list);
}

RMQ_DECLARE_MESSAGE(register_broker_request);

/// What a registering broker learns: a slave gets its master's address and
/// HA address; `kv_table` carries the ORDER_TOPIC_CONFIG namespace.
struct register_broker_result {
  std::string ha_server_addr;
  std::string master_addr;
  std::map<std::string, std::string> kv_table;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, register_broker_result& x) {
  return f(caf::meta::type_name("rmq.register_broker_result"), x.ha_server_addr,
           x.master_addr, x.kv_table);
}

RMQ_DECLARE_MESSAGE(register_broker_result);

/// UNREGISTER_BROKER (104): a broker leaves (queued, applied in a batch).
struct unregister_broker_request {
  std::string cluster_name;
  std::string broker_addr;
  std::string broker_name;
  int64_t broker_id = master_id;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, unregister_broker_request& x) {
  return f(caf::meta::type_name("rmq.unregister_broker_request"),
           x.cluster_name, x.broker_addr, x.broker_name, x.broker_id);
}

RMQ_DECLARE_MESSAGE(unregister_broker_request);

/// BROKER_HEARTBEAT (904): keeps a registered broker alive.
struct broker_heartbeat_request {
  std::string cluster_name;
  std::string broker_addr;
  std::string broker_name;
  int64_t broker_id = master_id;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, broker_heartbeat_request& x) {
  return f(caf::meta::type_name("rmq.broker_heartbeat_request"), x.cluster_name,
           x.broker_addr, x.broker_name, x.broker_id);
}

RMQ_DECLARE_MESSAGE(broker_heartbeat_request);

/// QUERY_DATA_VERSION (322): has my topic table changed since you saw it?
/// Also counts as a heartbeat.
struct query_data_version_request {
  std::string cluster_name;
  std::string broker_addr;
  std::string broker_name;
  int64_t broker_id = master_id;
  data_version version;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, query_data_version_request& x) {
  return f(caf::meta::type_name("rmq.query_data_version_request"),
           x.cluster_name, x.broker_addr, x.broker_name, x.broker_id,
           x.version);
}

RMQ_DECLARE_MESSAGE(query_data_version_request);

struct query_data_version_result {
  /// True if the NameServer holds another version (or none).
  bool changed = true;
  /// The version the NameServer holds (all zero if none).
  data_version version;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, query_data_version_result& x) {
  return f(caf::meta::type_name("rmq.query_data_version_result"), x.changed,
           x.version);
}

RMQ_DECLARE_MESSAGE(query_data_version_result);

/// GET_BROKER_MEMBER_GROUP (901).
struct get_broker_member_group_request {
  std::string cluster_name;
  std::string broker_name;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_broker_member_group_request& x) {
  return f(caf::meta::type_name("rmq.get_broker_member_group_request"),
           x.cluster_name, x.broker_name);
}

RMQ_DECLARE_MESSAGE(get_broker_member_group_request);

struct broker_member_group {
  std::string cluster;
  std::string broker_name;
  std::map<int64_t, std::string> broker_addrs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_member_group& x) {
  return f(caf::meta::type_name("rmq.broker_member_group"), x.cluster,
           x.broker_name, x.broker_addrs);
}

RMQ_DECLARE_MESSAGE(broker_member_group);

/// GET_BROKER_CLUSTER_INFO (106).
struct get_broker_cluster_info_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_broker_cluster_info_request&) {
  return f(caf::meta::type_name("rmq.get_broker_cluster_info_request"));
}

RMQ_DECLARE_MESSAGE(get_broker_cluster_info_request);

/// WIPE_WRITE_PERM_OF_BROKER (205): take a broker out of writes.
struct wipe_write_perm_request {
  std::string broker_name;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, wipe_write_perm_request& x) {
  return f(caf::meta::type_name("rmq.wipe_write_perm_request"), x.broker_name);
}

RMQ_DECLARE_MESSAGE(wipe_write_perm_request);

/// ADD_WRITE_PERM_OF_BROKER (327): put a broker back into writes.
struct add_write_perm_request {
  std::string broker_name;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, add_write_perm_request& x) {
  return f(caf::meta::type_name("rmq.add_write_perm_request"), x.broker_name);
}

RMQ_DECLARE_MESSAGE(add_write_perm_request);

/// Answer to wipe/add write perm: how many topics were touched.
struct write_perm_result {
  int32_t topic_count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, write_perm_result& x) {
  return f(caf::meta::type_name("rmq.write_perm_result"), x.topic_count);
}

RMQ_DECLARE_MESSAGE(write_perm_result);

/// GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206).
struct get_all_topic_list_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_all_topic_list_request&) {
  return f(caf::meta::type_name("rmq.get_all_topic_list_request"));
}

RMQ_DECLARE_MESSAGE(get_all_topic_list_request);

/// GET_TOPICS_BY_CLUSTER (224).
struct get_topics_by_cluster_request {
  std::string cluster_name;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_topics_by_cluster_request& x) {
  return f(caf::meta::type_name("rmq.get_topics_by_cluster_request"),
           x.cluster_name);
}

RMQ_DECLARE_MESSAGE(get_topics_by_cluster_request);

/// DELETE_TOPIC_IN_NAMESRV (216): everywhere, or only on one cluster's
/// brokers when `cluster_name` is set.
struct delete_topic_request {
  std::string topic;
  std::string cluster_name;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delete_topic_request& x) {
  return f(caf::meta::type_name("rmq.delete_topic_request"), x.topic,
           x.cluster_name);
}

RMQ_DECLARE_MESSAGE(delete_topic_request);

/// REGISTER_TOPIC_IN_NAMESRV (217): add queues of known brokers to a topic.
struct register_topic_request {
  std::string topic;
  std::vector<queue_data> queue_datas;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, register_topic_request& x) {
  return f(caf::meta::type_name("rmq.register_topic_request"), x.topic,
           x.queue_datas);
}

RMQ_DECLARE_MESSAGE(register_topic_request);

/// GET_ROUTEINFO_BY_TOPIC (105).
struct get_route_info_request {
  std::string topic;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_route_info_request& x) {
  return f(caf::meta::type_name("rmq.get_route_info_request"), x.topic);
}

RMQ_DECLARE_MESSAGE(get_route_info_request);

/// PUT_KV_CONFIG (100).
struct put_kv_config_request {
  std::string name_space;
  std::string key;
  std::string value;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, put_kv_config_request& x) {
  return f(caf::meta::type_name("rmq.put_kv_config_request"), x.name_space,
           x.key, x.value);
}

RMQ_DECLARE_MESSAGE(put_kv_config_request);

/// GET_KV_CONFIG (101): answers the value as a string.
struct get_kv_config_request {
  std::string name_space;
  std::string key;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_kv_config_request& x) {
  return f(caf::meta::type_name("rmq.get_kv_config_request"), x.name_space,
           x.key);
}

RMQ_DECLARE_MESSAGE(get_kv_config_request);

/// DELETE_KV_CONFIG (102).
struct delete_kv_config_request {
  std::string name_space;
  std::string key;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, delete_kv_config_request& x) {
  return f(caf::meta::type_name("rmq.delete_kv_config_request"), x.name_space,
           x.key);
}

RMQ_DECLARE_MESSAGE(delete_kv_config_request);

/// GET_KVLIST_BY_NAMESPACE (219).
struct get_kv_list_by_namespace_request {
  std::string name_space;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_kv_list_by_namespace_request& x) {
  return f(caf::meta::type_name("rmq.get_kv_list_by_namespace_request"),
           x.name_space);
}

RMQ_DECLARE_MESSAGE(get_kv_list_by_namespace_request);

/// Key -> value of one namespace (RocketMQ KVTable).
struct kv_table {
  std::map<std::string, std::string> table;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kv_table& x) {
  return f(caf::meta::type_name("rmq.kv_table"), x.table);
}

RMQ_DECLARE_MESSAGE(kv_table);

/// GET_NAMESRV_CONFIG (319): every setting of the node.
struct get_namesrv_config_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_namesrv_config_request&) {
  return f(caf::meta::type_name("rmq.get_namesrv_config_request"));
}

RMQ_DECLARE_MESSAGE(get_namesrv_config_request);

/// A NameServer's settings as RocketMQ's property names and value text
/// ("orderMessageEnable" -> "false"), sorted by name.
struct namesrv_config {
  std::map<std::string, std::string> properties;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, namesrv_config& x) {
  return f(caf::meta::type_name("rmq.namesrv_config"), x.properties);
}

RMQ_DECLARE_MESSAGE(namesrv_config);

/// UPDATE_NAMESRV_CONFIG (318): change settings at run time; all or none.
struct update_namesrv_config_request {
  std::map<std::string, std::string> properties;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, update_namesrv_config_request& x) {
  return f(caf::meta::type_name("rmq.update_namesrv_config_request"),
           x.properties);
}

RMQ_DECLARE_MESSAGE(update_namesrv_config_request);

/// GET_SYSTEM_TOPIC_LIST_FROM_NS (304).
struct get_system_topic_list_request {};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_system_topic_list_request&) {
  return f(caf::meta::type_name("rmq.get_system_topic_list_request"));
}

RMQ_DECLARE_MESSAGE(get_system_topic_list_request);

/// RocketMQ's system topic list: every cluster name and broker name (each
/// is a topic on its brokers) and the address of one broker, empty if none.
struct system_topic_list {
  std::vector<std::string> topics;
  std::string broker_addr;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, system_topic_list& x) {
  return f(caf::meta::type_name("rmq.system_topic_list"), x.topics,
           x.broker_addr);
}

RMQ_DECLARE_MESSAGE(system_topic_list);

/// Namespace of per-topic order configuration ("brokerA:8;brokerB:8").
constexpr const char* order_topic_config_namespace = "ORDER_TOPIC_CONFIG";

} // namespace rmq

// -- the published interface --------------------------------------------------

#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/common/common.hpp"

namespace rmq {

/// What a NameServer node publishes on its port: one handler per RocketMQ
/// request code, plus `dump` (JSON of every actor of the node).
using namesrv_actor = dumpable_actor::extend<
  caf::replies_to<register_broker_request>::with<register_broker_result>,
  caf::replies_to<unregister_broker_request>::with<caf::ok_atom>,
  caf::replies_to<broker_heartbeat_request>::with<caf::ok_atom>,
  caf::replies_to<query_data_version_request>::with<query_data_version_result>,
  caf::replies_to<get_broker_member_group_request>::with<broker_member_group>,
  caf::replies_to<get_broker_cluster_info_request>::with<cluster_info>,
  caf::replies_to<wipe_write_perm_request>::with<write_perm_result>,
  caf::replies_to<add_write_perm_request>::with<write_perm_result>,
  caf::replies_to<get_all_topic_list_request>::with<topic_list>,
  caf::replies_to<get_topics_by_cluster_request>::with<topic_list>,
  caf::replies_to<delete_topic_request>::with<caf::ok_atom>,
  caf::replies_to<register_topic_request>::with<caf::ok_atom>,
  caf::replies_to<get_route_info_request>::with<topic_route_data>,
  caf::replies_to<put_kv_config_request>::with<caf::ok_atom>,
  caf::replies_to<get_kv_config_request>::with<std::string>,
  caf::replies_to<delete_kv_config_request>::with<caf::ok_atom>,
  caf::replies_to<get_kv_list_by_namespace_request>::with<kv_table>,
  caf::replies_to<get_namesrv_config_request>::with<namesrv_config>,
  caf::replies_to<update_namesrv_config_request>::with<caf::ok_atom>,
  caf::replies_to<get_system_topic_list_request>::with<system_topic_list>>;

} // namespace rmq
