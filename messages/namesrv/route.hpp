// Route data: what a NameServer knows about topics and brokers
// (RocketMQ: remoting/protocol/route/{TopicRouteData,BrokerData,QueueData},
// DataVersion, TopicConfig, ClusterInfo).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "caf/meta/type_name.hpp"

#include "messages/common/message_decl.hpp"

namespace rmq {

/// Permission bits of a topic on a broker (RocketMQ PermName).
namespace perm {
constexpr int32_t inherit = 1;
constexpr int32_t write = 2;
constexpr int32_t read = 4;
constexpr int32_t priority = 8;
constexpr int32_t read_write = read | write;
inline bool is_valid(int32_t x) {
  return x >= 0 && x <= 7;
}
} // namespace perm

/// Broker id of a master; slaves have ids > 0.
constexpr int64_t master_id = 0;

/// Version of a broker's topic table; equal only if all three fields are.
struct data_version {
  int64_t state_version = 0;
  int64_t timestamp = 0;
  int64_t counter = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, data_version& x) {
  return f(caf::meta::type_name("rmq.data_version"), x.state_version,
           x.timestamp, x.counter);
}

RMQ_DECLARE_MESSAGE(data_version);

/// A topic as a broker configures it (RocketMQ TopicConfig).
struct topic_config {
  std::string topic_name;
  int32_t read_queue_nums = 16;
  int32_t write_queue_nums = 16;
  int32_t perm = perm::read_write;
  int32_t topic_filter_type = 0; // 0 = SINGLE_TAG, 1 = MULTI_TAG
  int32_t topic_sys_flag = 0;
  bool order = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_config& x) {
  return f(caf::meta::type_name("rmq.topic_config"), x.topic_name,
           x.read_queue_nums, x.write_queue_nums, x.perm, x.topic_filter_type,
           x.topic_sys_flag, x.order);
}

RMQ_DECLARE_MESSAGE(topic_config);

/// The queues one broker serves for one topic (RocketMQ QueueData).
struct queue_data {
  std::string broker_name;
  int32_t read_queue_nums = 0;
  int32_t write_queue_nums = 0;
  int32_t perm = 0;
  int32_t topic_sys_flag = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_data& x) {
  return f(caf::meta::type_name("rmq.queue_data"), x.broker_name,
           x.read_queue_nums, x.write_queue_nums, x.perm, x.topic_sys_flag);
}

RMQ_DECLARE_MESSAGE(queue_data);

/// Returns the queue data a broker's topic config announces.
queue_data make_queue_data(const std::string& broker_name,
                           const topic_config& cfg);

/// A master/slave group: one broker name, its members by id (RocketMQ
/// BrokerData). Id 0 is the master.
struct broker_data {
  std::string cluster;
  std::string broker_name;
  std::map<int64_t, std::string> broker_addrs;
  /// The same ids' remoting addresses, for RocketMQ's remoting clients
  /// (an id without one is out of their reach).
  std::map<int64_t, std::string> remoting_addrs;
  std::string zone_name;
  bool enable_acting_master = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_data& x) {
  return f(caf::meta::type_name("rmq.broker_data"), x.cluster, x.broker_name,
           x.broker_addrs, x.remoting_addrs, x.zone_name,
           x.enable_acting_master);
}

RMQ_DECLARE_MESSAGE(broker_data);

/// Drops the remoting addresses of ids that left broker_addrs.
void sync_remoting_addrs(broker_data& x);

/// Everything a client needs to reach a topic (RocketMQ TopicRouteData).
struct topic_route_data {
  std::string order_topic_conf;
  std::vector<queue_data> queue_datas;
  std::vector<broker_data> broker_datas;
  /// Broker address -> its filter servers.
  std::map<std::string, std::vector<std::string>> filter_server_table;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_route_data& x) {
  return f(caf::meta::type_name("rmq.topic_route_data"), x.order_topic_conf,
           x.queue_datas, x.broker_datas, x.filter_server_table);
}

RMQ_DECLARE_MESSAGE(topic_route_data);

/// Brokers and clusters (RocketMQ ClusterInfo).
struct cluster_info {
  /// Broker name -> broker data.
  std::map<std::string, broker_data> broker_addr_table;
  /// Cluster name -> broker names.
  std::map<std::string, std::vector<std::string>> cluster_addr_table;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cluster_info& x) {
  return f(caf::meta::type_name("rmq.cluster_info"), x.broker_addr_table,
           x.cluster_addr_table);
}

RMQ_DECLARE_MESSAGE(cluster_info);

/// A list of topic names (RocketMQ TopicList).
struct topic_list {
  std::vector<std::string> topics;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_list& x) {
  return f(caf::meta::type_name("rmq.topic_list"), x.topics);
}

RMQ_DECLARE_MESSAGE(topic_list);

} // namespace rmq
