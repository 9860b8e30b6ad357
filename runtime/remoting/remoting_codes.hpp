// RocketMQ's request codes (RequestCode.java) and response codes
// (ResponseCode.java, RemotingSysResponseCode.java) that our nodes serve or
// answer with. The response codes equal messages/common/errors.hpp's errc
// values below 100.
#pragma once

#include <cstdint>

namespace rmq::remoting {

namespace request_code {
constexpr int32_t send_message = 10;
constexpr int32_t pull_message = 11;
constexpr int32_t query_message = 12;
constexpr int32_t query_consumer_offset = 14;
constexpr int32_t update_consumer_offset = 15;
constexpr int32_t update_and_create_topic = 17;
constexpr int32_t get_all_topic_config = 21;
constexpr int32_t update_broker_config = 25;
constexpr int32_t get_broker_config = 26;
constexpr int32_t get_broker_runtime_info = 28;
constexpr int32_t search_offset_by_timestamp = 29;
constexpr int32_t get_max_offset = 30;
constexpr int32_t get_min_offset = 31;
constexpr int32_t get_earliest_msg_storetime = 32;
constexpr int32_t view_message_by_id = 33;
constexpr int32_t heart_beat = 34;
constexpr int32_t unregister_client = 35;
constexpr int32_t consumer_send_msg_back = 36;
constexpr int32_t end_transaction = 37;
constexpr int32_t get_consumer_list_by_group = 38;
constexpr int32_t check_transaction_state = 39;
constexpr int32_t notify_consumer_ids_changed = 40;
constexpr int32_t lock_batch_mq = 41;
constexpr int32_t unlock_batch_mq = 42;
constexpr int32_t put_kv_config = 100;
constexpr int32_t get_kv_config = 101;
constexpr int32_t delete_kv_config = 102;
constexpr int32_t register_broker = 103;
constexpr int32_t unregister_broker = 104;
constexpr int32_t get_routeinfo_by_topic = 105;
constexpr int32_t get_broker_cluster_info = 106;
constexpr int32_t update_and_create_subscriptiongroup = 200;
constexpr int32_t get_all_subscriptiongroup_config = 201;
constexpr int32_t get_topic_stats_info = 202;
constexpr int32_t get_consumer_connection_list = 203;
constexpr int32_t get_producer_connection_list = 204;
constexpr int32_t wipe_write_perm_of_broker = 205;
constexpr int32_t get_all_topic_list_from_nameserver = 206;
constexpr int32_t delete_subscriptiongroup = 207;
constexpr int32_t get_consume_stats = 208;
constexpr int32_t delete_topic_in_broker = 215;
constexpr int32_t delete_topic_in_namesrv = 216;
constexpr int32_t register_topic_in_namesrv = 217;
constexpr int32_t get_kvlist_by_namespace = 219;
constexpr int32_t get_topics_by_cluster = 224;
constexpr int32_t get_system_topic_list_from_ns = 304;
constexpr int32_t get_consumer_running_info = 307;
constexpr int32_t send_message_v2 = 310;
constexpr int32_t update_namesrv_config = 318;
constexpr int32_t get_namesrv_config = 319;
constexpr int32_t send_batch_message = 320;
constexpr int32_t query_data_version = 322;
constexpr int32_t send_reply_message = 324;
constexpr int32_t send_reply_message_v2 = 325;
constexpr int32_t push_reply_message_to_client = 326;
constexpr int32_t add_write_perm_of_broker = 327;
constexpr int32_t get_topic_config = 351;
constexpr int32_t get_broker_member_group = 901;
constexpr int32_t broker_heartbeat = 904;
} // namespace request_code

namespace response_code {
constexpr int32_t success = 0;
constexpr int32_t system_error = 1;
constexpr int32_t system_busy = 2;
constexpr int32_t request_code_not_supported = 3;
constexpr int32_t flush_disk_timeout = 10;
constexpr int32_t slave_not_available = 11;
constexpr int32_t flush_slave_timeout = 12;
constexpr int32_t message_illegal = 13;
constexpr int32_t service_not_available = 14;
constexpr int32_t no_permission = 16;
constexpr int32_t topic_not_exist = 17;
constexpr int32_t pull_not_found = 19;
constexpr int32_t pull_retry_immediately = 20;
constexpr int32_t pull_offset_moved = 21;
constexpr int32_t query_not_found = 22;
constexpr int32_t subscription_parse_failed = 23;
constexpr int32_t subscription_not_exist = 24;
constexpr int32_t subscription_not_latest = 25;
constexpr int32_t subscription_group_not_exist = 26;
constexpr int32_t invalid_parameter = 29;
constexpr int32_t consumer_not_online = 206;
constexpr int32_t consume_msg_timeout = 207;
} // namespace response_code

} // namespace rmq::remoting
