#include "messages/namesrv/route.hpp"

#include <iterator>

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(data_version, state_version, timestamp, counter)

RMQ_DEFINE_MESSAGE(topic_config, topic_name, read_queue_nums, write_queue_nums,
                   perm, topic_filter_type, topic_sys_flag, order)

RMQ_DEFINE_MESSAGE(queue_data, broker_name, read_queue_nums, write_queue_nums,
                   perm, topic_sys_flag)

RMQ_DEFINE_MESSAGE(broker_data, cluster, broker_name, broker_addrs,
                   remoting_addrs, zone_name, enable_acting_master)

RMQ_DEFINE_MESSAGE(topic_route_data, order_topic_conf, queue_datas,
                   broker_datas, filter_server_table)

RMQ_DEFINE_MESSAGE(cluster_info, broker_addr_table, cluster_addr_table)

RMQ_DEFINE_MESSAGE(topic_list, topics)

void sync_remoting_addrs(broker_data& x) {
  for (auto i = x.remoting_addrs.begin(); i != x.remoting_addrs.end();)
    i = x.broker_addrs.count(i->first) == 0 ? x.remoting_addrs.erase(i)
                                            : std::next(i);
}

queue_data make_queue_data(const std::string& broker_name,
                           const topic_config& cfg) {
  return {broker_name, cfg.read_queue_nums, cfg.write_queue_nums, cfg.perm,
          cfg.topic_sys_flag};
}

} // namespace rmq
