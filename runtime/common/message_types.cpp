#include "runtime/common/message_types.hpp"

#include "messages/broker/admin.hpp"
#include "messages/broker/broker.hpp"
#include "messages/broker/client_manager.hpp"
#include "messages/broker/namesrv_registrar.hpp"
#include "messages/broker/pull.hpp"
#include "messages/broker/replication.hpp"
#include "messages/broker/reply.hpp"
#include "messages/broker/schedule.hpp"
#include "messages/broker/send.hpp"
#include "messages/broker/send_back.hpp"
#include "messages/broker/timer.hpp"
#include "messages/broker/topics.hpp"
#include "messages/broker/transaction.hpp"
#include "messages/broker/transaction_service.hpp"
#include "messages/client/client.hpp"
#include "messages/client/client_reply.hpp"
#include "messages/client/consumer.hpp"
#include "messages/client/transaction_producer.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "messages/namesrv/route.hpp"
#include "messages/store/store.hpp"
#include "messages/store/store_actors.hpp"

namespace rmq {

void register_message_types(caf::actor_system_config& cfg) {
  // -- namesrv ----------------------------------------------------------------
  cfg.add_message_type<data_version>("rmq.data_version");
  cfg.add_message_type<topic_config>("rmq.topic_config");
  cfg.add_message_type<queue_data>("rmq.queue_data");
  cfg.add_message_type<broker_data>("rmq.broker_data");
  cfg.add_message_type<topic_route_data>("rmq.topic_route_data");
  cfg.add_message_type<cluster_info>("rmq.cluster_info");
  cfg.add_message_type<topic_list>("rmq.topic_list");
  cfg.add_message_type<register_broker_request>("rmq.register_broker_request");
  cfg.add_message_type<register_broker_result>("rmq.register_broker_result");
  cfg.add_message_type<unregister_broker_request>(
    "rmq.unregister_broker_request");
  cfg.add_message_type<broker_heartbeat_request>(
    "rmq.broker_heartbeat_request");
  cfg.add_message_type<query_data_version_request>(
    "rmq.query_data_version_request");
  cfg.add_message_type<query_data_version_result>(
    "rmq.query_data_version_result");
  cfg.add_message_type<get_broker_member_group_request>(
    "rmq.get_broker_member_group_request");
  cfg.add_message_type<broker_member_group>("rmq.broker_member_group");
  cfg.add_message_type<get_broker_cluster_info_request>(
    "rmq.get_broker_cluster_info_request");
  cfg.add_message_type<wipe_write_perm_request>("rmq.wipe_write_perm_request");
  cfg.add_message_type<add_write_perm_request>("rmq.add_write_perm_request");
  cfg.add_message_type<write_perm_result>("rmq.write_perm_result");
  cfg.add_message_type<get_all_topic_list_request>(
    "rmq.get_all_topic_list_request");
  cfg.add_message_type<get_topics_by_cluster_request>(
    "rmq.get_topics_by_cluster_request");
  cfg.add_message_type<delete_topic_request>("rmq.delete_topic_request");
  cfg.add_message_type<register_topic_request>("rmq.register_topic_request");
  cfg.add_message_type<get_route_info_request>("rmq.get_route_info_request");
  cfg.add_message_type<put_kv_config_request>("rmq.put_kv_config_request");
  cfg.add_message_type<get_kv_config_request>("rmq.get_kv_config_request");
  cfg.add_message_type<delete_kv_config_request>(
    "rmq.delete_kv_config_request");
  cfg.add_message_type<get_kv_list_by_namespace_request>(
    "rmq.get_kv_list_by_namespace_request");
  cfg.add_message_type<kv_table>("rmq.kv_table");
  // Map-valued replies travel as top-level message elements.
  cfg.add_message_type<std::map<int64_t, std::string>>("rmq.broker_addrs");
  cfg.add_message_type<namesrv_actor>("rmq.namesrv_actor");
  cfg.add_message_type<get_namesrv_config_request>(
    "rmq.get_namesrv_config_request");
  cfg.add_message_type<namesrv_config>("rmq.namesrv_config");
  cfg.add_message_type<update_namesrv_config_request>(
    "rmq.update_namesrv_config_request");
  cfg.add_message_type<get_system_topic_list_request>(
    "rmq.get_system_topic_list_request");
  cfg.add_message_type<system_topic_list>("rmq.system_topic_list");
  // -- broker / store ---------------------------------------------------------
  cfg.add_message_type<store_message>("rmq.store_message");
  cfg.add_message_type<put_result>("rmq.put_result");
  cfg.add_message_type<get_message_request>("rmq.get_message_request");
  cfg.add_message_type<get_message_result>("rmq.get_message_result");
  cfg.add_message_type<get_offset_request>("rmq.get_offset_request");
  cfg.add_message_type<queue_offsets>("rmq.queue_offsets");
  cfg.add_message_type<search_offset_request>("rmq.search_offset_request");
  cfg.add_message_type<query_message_request>("rmq.query_message_request");
  cfg.add_message_type<query_message_result>("rmq.query_message_result");
  cfg.add_message_type<commit_log_writer_actor>("rmq.commit_log_writer_actor");
  cfg.add_message_type<flush_service_actor>("rmq.flush_service_actor");
  cfg.add_message_type<queue_service_actor>("rmq.queue_service_actor");
  cfg.add_message_type<arrival_listener_actor>("rmq.arrival_listener_actor");
  cfg.add_message_type<queue_watcher_actor>("rmq.queue_watcher_actor");
  cfg.add_message_type<warm_service_actor>("rmq.warm_service_actor");
  // -- broker: topics ---------------------------------------------------------
  cfg.add_message_type<topic_config_set>("rmq.topic_config_set");
  cfg.add_message_type<topic_for_send_request>("rmq.topic_for_send_request");
  cfg.add_message_type<group_topic_request>("rmq.group_topic_request");
  cfg.add_message_type<topic_config_table_actor>(
    "rmq.topic_config_table_actor");
  // -- broker: NameServer registrar -------------------------------------------
  cfg.add_message_type<namesrv_registrar_actor>("rmq.namesrv_registrar_actor");
  // -- broker: send -----------------------------------------------------------
  cfg.add_message_type<send_message_request>("rmq.send_message_request");
  cfg.add_message_type<send_entry>("rmq.send_entry");
  cfg.add_message_type<send_result>("rmq.send_result");
  cfg.add_message_type<send_processor_actor>("rmq.send_processor_actor");
  // -- broker: pulls and consumer offsets -------------------------------------
  cfg.add_message_type<pull_message_request>("rmq.pull_message_request");
  cfg.add_message_type<pull_message_result>("rmq.pull_message_result");
  cfg.add_message_type<group_pull_rate_request>("rmq.group_pull_rate_request");
  cfg.add_message_type<query_offset_request>("rmq.query_offset_request");
  cfg.add_message_type<update_offset_request>("rmq.update_offset_request");
  cfg.add_message_type<list_offsets_request>("rmq.list_offsets_request");
  cfg.add_message_type<consumer_offsets>("rmq.consumer_offsets");
  cfg.add_message_type<pull_processor_actor>("rmq.pull_processor_actor");
  cfg.add_message_type<pull_hold_service_actor>("rmq.pull_hold_service_actor");
  cfg.add_message_type<consumer_offset_table_actor>(
    "rmq.consumer_offset_table_actor");
  // -- broker: clients, subscription groups, queue locks ----------------------
  cfg.add_message_type<subscription_data>("rmq.subscription_data");
  cfg.add_message_type<consumer_data>("rmq.consumer_data");
  cfg.add_message_type<client_heartbeat>("rmq.client_heartbeat");
  cfg.add_message_type<unregister_client_request>(
    "rmq.unregister_client_request");
  cfg.add_message_type<get_consumer_list_request>(
    "rmq.get_consumer_list_request");
  cfg.add_message_type<consumer_list>("rmq.consumer_list");
  cfg.add_message_type<client_connection>("rmq.client_connection");
  cfg.add_message_type<get_consumer_connection_request>(
    "rmq.get_consumer_connection_request");
  cfg.add_message_type<consumer_connection>("rmq.consumer_connection");
  cfg.add_message_type<get_consumer_running_info_request>(
    "rmq.get_consumer_running_info_request");
  cfg.add_message_type<consumer_running_info>("rmq.consumer_running_info");
  cfg.add_message_type<replica_chunk_request>("rmq.replica_chunk_request");
  cfg.add_message_type<replica_chunk>("rmq.replica_chunk");
  cfg.add_message_type<metadata_request>("rmq.metadata_request");
  cfg.add_message_type<role_change_request>("rmq.role_change_request");
  cfg.add_message_type<metadata_snapshot>("rmq.metadata_snapshot");
  cfg.add_message_type<std::vector<consumer_offsets>>(
    "std::vector<rmq.consumer_offsets>");
  cfg.add_message_type<metadata_source_actor>("rmq.metadata_source_actor");
  cfg.add_message_type<find_producer_channels>("rmq.find_producer_channels");
  cfg.add_message_type<find_client_channel>("rmq.find_client_channel");
  cfg.add_message_type<consumer_ids_changed>("rmq.consumer_ids_changed");
  cfg.add_message_type<client_queue>("rmq.client_queue");
  cfg.add_message_type<lock_batch_request>("rmq.lock_batch_request");
  cfg.add_message_type<unlock_batch_request>("rmq.unlock_batch_request");
  cfg.add_message_type<locked_queues>("rmq.locked_queues");
  cfg.add_message_type<subscription_group_config>(
    "rmq.subscription_group_config");
  cfg.add_message_type<subscription_group_set>("rmq.subscription_group_set");
  cfg.add_message_type<find_subscription_group_request>(
    "rmq.find_subscription_group_request");
  cfg.add_message_type<subscription_group_table_actor>(
    "rmq.subscription_group_table_actor");
  cfg.add_message_type<queue_lock_table_actor>("rmq.queue_lock_table_actor");
  cfg.add_message_type<client_manager_actor>("rmq.client_manager_actor");
  // -- broker: send-back (retry and dead letters) ------------------------------
  cfg.add_message_type<consumer_send_back_request>(
    "rmq.consumer_send_back_request");
  cfg.add_message_type<send_back_processor_actor>(
    "rmq.send_back_processor_actor");
  // -- broker: front door and admin -------------------------------------------
  cfg.add_message_type<update_topic_request>("rmq.update_topic_request");
  cfg.add_message_type<delete_topic_in_broker_request>(
    "rmq.delete_topic_in_broker_request");
  cfg.add_message_type<get_all_topic_config_request>(
    "rmq.get_all_topic_config_request");
  cfg.add_message_type<update_sub_group_request>(
    "rmq.update_sub_group_request");
  cfg.add_message_type<delete_sub_group_request>(
    "rmq.delete_sub_group_request");
  cfg.add_message_type<get_all_sub_group_request>(
    "rmq.get_all_sub_group_request");
  cfg.add_message_type<earliest_msg_store_time_request>(
    "rmq.earliest_msg_store_time_request");
  cfg.add_message_type<view_message_request>("rmq.view_message_request");
  cfg.add_message_type<topic_stats_request>("rmq.topic_stats_request");
  cfg.add_message_type<queue_stats>("rmq.queue_stats");
  cfg.add_message_type<topic_stats>("rmq.topic_stats");
  cfg.add_message_type<consume_stats_request>("rmq.consume_stats_request");
  cfg.add_message_type<queue_progress>("rmq.queue_progress");
  cfg.add_message_type<consume_stats>("rmq.consume_stats");
  cfg.add_message_type<broker_runtime_info_request>(
    "rmq.broker_runtime_info_request");
  cfg.add_message_type<broker_runtime_info>("rmq.broker_runtime_info");
  cfg.add_message_type<broker_admin_service_actor>(
    "rmq.broker_admin_service_actor");
  cfg.add_message_type<broker_actor>("rmq.broker_actor");
  // -- broker: delay-level schedule service -----------------------------------
  cfg.add_message_type<schedule_level_progress>("rmq.schedule_level_progress");
  cfg.add_message_type<schedule_progress>("rmq.schedule_progress");
  cfg.add_message_type<schedule_service_actor>("rmq.schedule_service_actor");
  // -- client instance and producer -------------------------------------------
  cfg.add_message_type<message_queue>("rmq.message_queue");
  cfg.add_message_type<std::vector<message_queue>>(
    "std::vector<rmq.message_queue>");
  cfg.add_message_type<client_message>("rmq.client_message");
  cfg.add_message_type<std::vector<client_message>>(
    "std::vector<rmq.client_message>");
  cfg.add_message_type<client_send_result>("rmq.client_send_result");
  cfg.add_message_type<fault_report>("rmq.fault_report");
  cfg.add_message_type<fault_item>("rmq.fault_item");
  cfg.add_message_type<fault_snapshot>("rmq.fault_snapshot");
  cfg.add_message_type<std::vector<broker_data>>(
    "std::vector<rmq.broker_data>");
  // -- client instance: directory, route cache, heartbeats --------------------
  cfg.add_message_type<client_broker_actor>("rmq.client_broker_actor");
  cfg.add_message_type<client_namesrv_actor>("rmq.client_namesrv_actor");
  cfg.add_message_type<peer_listener_actor>("rmq.peer_listener_actor");
  cfg.add_message_type<peer_directory_actor>("rmq.peer_directory_actor");
  cfg.add_message_type<route_listener_actor>("rmq.route_listener_actor");
  cfg.add_message_type<route_cache_actor>("rmq.route_cache_actor");
  cfg.add_message_type<client_heartbeat_service_actor>(
    "rmq.client_heartbeat_service_actor");
  // -- consumer ---------------------------------------------------------------
  cfg.add_message_type<received_message>("rmq.received_message");
  cfg.add_message_type<std::vector<received_message>>(
    "std::vector<rmq.received_message>");
  cfg.add_message_type<rebalance_subscription>("rmq.rebalance_subscription");
  cfg.add_message_type<queue_assignment>("rmq.queue_assignment");
  // -- producer: send loop ------------------------------------------------------
  cfg.add_message_type<producer_actor>("rmq.producer_actor");
  // -- consumer: rebalance service and lite pull consumer ----------------------
  cfg.add_message_type<rebalance_target_actor>("rmq.rebalance_target_actor");
  cfg.add_message_type<rebalance_service_actor>("rmq.rebalance_service_actor");
  cfg.add_message_type<lite_pull_consumer_actor>(
    "rmq.lite_pull_consumer_actor");
  // -- consumer: push consumer and consume workers ----------------------------
  cfg.add_message_type<consume_result>("rmq.consume_result");
  cfg.add_message_type<consume_worker_actor>("rmq.consume_worker_actor");
  cfg.add_message_type<push_consumer_actor>("rmq.push_consumer_actor");
  // -- transactions -------------------------------------------------------------
  cfg.add_message_type<end_transaction_request>("rmq.end_transaction_request");
  cfg.add_message_type<check_transaction_state>("rmq.check_transaction_state");
  // -- transactions: the producer side ----------------------------------------
  cfg.add_message_type<transaction_check_listener_actor>(
    "rmq.transaction_check_listener_actor");
  cfg.add_message_type<local_transaction_result>(
    "rmq.local_transaction_result");
  cfg.add_message_type<transaction_send_result>("rmq.transaction_send_result");
  cfg.add_message_type<transaction_worker_actor>(
    "rmq.transaction_worker_actor");
  cfg.add_message_type<transaction_producer_actor>(
    "rmq.transaction_producer_actor");
  // -- request-reply ------------------------------------------------------------
  cfg.add_message_type<send_reply_message_request>(
    "rmq.send_reply_message_request");
  cfg.add_message_type<push_reply_message>("rmq.push_reply_message");
  cfg.add_message_type<reply_processor_actor>("rmq.reply_processor_actor");
  cfg.add_message_type<reply_broker_actor>("rmq.reply_broker_actor");
  cfg.add_message_type<request_holder_actor>("rmq.request_holder_actor");
  // -- broker: transaction processor and check service -----------------------
  cfg.add_message_type<transaction_group_pending>(
    "rmq.transaction_group_pending");
  cfg.add_message_type<transaction_progress>("rmq.transaction_progress");
  cfg.add_message_type<end_transaction_processor_actor>(
    "rmq.end_transaction_processor_actor");
  cfg.add_message_type<transaction_check_service_actor>(
    "rmq.transaction_check_service_actor");
  // -- broker: timer (any-time delivery) ----------------------------------------
  cfg.add_message_type<queue_units_request>("rmq.queue_units_request");
  cfg.add_message_type<queue_unit>("rmq.queue_unit");
  cfg.add_message_type<queue_units>("rmq.queue_units");
  cfg.add_message_type<timer_progress>("rmq.timer_progress");
  cfg.add_message_type<timer_service_actor>("rmq.timer_service_actor");
}

} // namespace rmq
