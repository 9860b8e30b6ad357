#include "messages/namesrv/namesrv.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(register_broker_request, cluster_name, broker_addr,
                   broker_name, broker_id, ha_server_addr, remoting_addr,
                   zone_name, heartbeat_timeout_ms, enable_acting_master,
                   version, topics, has_filter_servers, filter_server_list)

RMQ_DEFINE_MESSAGE(register_broker_result, ha_server_addr, master_addr,
                   kv_table)

RMQ_DEFINE_MESSAGE(unregister_broker_request, cluster_name, broker_addr,
                   broker_name, broker_id)

RMQ_DEFINE_MESSAGE(broker_heartbeat_request, cluster_name, broker_addr,
                   broker_name, broker_id)

RMQ_DEFINE_MESSAGE(query_data_version_request, cluster_name, broker_addr,
                   broker_name, broker_id, version)

RMQ_DEFINE_MESSAGE(query_data_version_result, changed, version)

RMQ_DEFINE_MESSAGE(get_broker_member_group_request, cluster_name, broker_name)

RMQ_DEFINE_MESSAGE(broker_member_group, cluster, broker_name, broker_addrs)

RMQ_DEFINE_EMPTY_MESSAGE(get_broker_cluster_info_request)

RMQ_DEFINE_MESSAGE(wipe_write_perm_request, broker_name)

RMQ_DEFINE_MESSAGE(add_write_perm_request, broker_name)

RMQ_DEFINE_MESSAGE(write_perm_result, topic_count)

RMQ_DEFINE_EMPTY_MESSAGE(get_all_topic_list_request)

RMQ_DEFINE_MESSAGE(get_topics_by_cluster_request, cluster_name)

RMQ_DEFINE_MESSAGE(delete_topic_request, topic, cluster_name)

RMQ_DEFINE_MESSAGE(register_topic_request, topic, queue_datas)

RMQ_DEFINE_MESSAGE(get_route_info_request, topic)

RMQ_DEFINE_MESSAGE(put_kv_config_request, name_space, key, value)

RMQ_DEFINE_MESSAGE(get_kv_config_request, name_space, key)

RMQ_DEFINE_MESSAGE(delete_kv_config_request, name_space, key)

RMQ_DEFINE_MESSAGE(get_kv_list_by_namespace_request, name_space)

RMQ_DEFINE_MESSAGE(kv_table, table)

RMQ_DEFINE_EMPTY_MESSAGE(get_namesrv_config_request)

RMQ_DEFINE_MESSAGE(namesrv_config, properties)

RMQ_DEFINE_MESSAGE(update_namesrv_config_request, properties)

RMQ_DEFINE_EMPTY_MESSAGE(get_system_topic_list_request)

RMQ_DEFINE_MESSAGE(system_topic_list, topics, broker_addr)

} // namespace rmq
