#include "apps/rmq-node/node_options.hpp"

#include "actors/broker/node/broker_node.hpp"

namespace rmq::node {

options::options() {
  broker_options broker_defaults;
  max_transfer_count_on_message_in_memory = broker_defaults.max_transfer_count;
  max_transfer_bytes_on_message_in_memory = broker_defaults.max_transfer_bytes;
  opt_group{custom_options_, "global"}
    .add(role, "role", "namesrv or broker")
    .add(host, "host",
         "address to listen on and, for a broker, to register (without "
         "--tls-dir anyone who can connect is trusted: keep it on loopback)")
    .add(port, "port,p",
         "port of the CAF protocol (this project's clients and nodes); 0 "
         "picks a free one; default 9886 (namesrv), 10921 (broker)")
    .add(remoting_port, "remoting-port",
         "port of RocketMQ's remoting protocol, for RocketMQ clients and "
         "tools; 0 picks a free one; default 9876 (namesrv), 10911 "
         "(broker)")
    .add(remoting_idle_timeout_ms, "remoting-idle-timeout-ms",
         "a remoting connection without a byte either way this long is "
         "closed (RocketMQ serverChannelMaxIdleTimeSeconds)")
    .add(remoting_stall_timeout_ms, "remoting-stall-timeout-ms",
         "a remoting frame begun and not finished within this closes its "
         "connection")
    .add(log_level, "log-level", "debug, info, warn, error or off")
    .add(max_connections, "max-connections",
         "accepted connections at most (and what the open-files limit "
         "leaves); more are refused")
    .add(first_frame_timeout_ms, "first-frame-timeout-ms",
         "a connection that sent no whole first frame (TLS handshake "
         "included) within this is closed")
    .add(max_frame_bytes, "max-frame-bytes",
         "a frame announcing more bytes closes its connection before it is "
         "read (0: namesrv 16 MiB, broker max-message-size + 1 MiB)");
  opt_group{custom_options_, "global"}
    .add(scan_interval_ms, "scan-interval-ms",
         "namesrv: how often silent brokers are looked for (0: never)")
    .add(broker_timeout_ms, "broker-timeout-ms",
         "namesrv: silence after which a broker is dropped")
    .add(kv_config_path, "kv-config-path",
         "namesrv: where the KV config is kept ('' = memory only)")
    .add(unregister_queue_capacity, "unregister-queue-capacity",
         "namesrv: queued unregistrations before requests are refused")
    .add(disable_all_topic_list, "disable-all-topic-list",
         "namesrv: refuse GET_ALL_TOPIC_LIST_FROM_NAMESERVER")
    .add(disable_topic_list, "disable-topic-list",
         "namesrv: refuse GET_TOPICS_BY_CLUSTER")
    .add(order_message_enable, "order-message-enable",
         "namesrv: add ORDER_TOPIC_CONFIG to routes")
    .add(delete_topic_with_broker_registration,
         "delete-topic-with-broker-registration",
         "namesrv: a registration without a topic removes the broker from it");
  opt_group{custom_options_, "global"}
    .add(namesrv, "namesrv,n",
         "broker: NameServer list 'host:port;host:port' (empty: none)")
    .add(broker_name, "name", "broker: brokerName")
    .add(cluster_name, "cluster", "broker: brokerClusterName")
    .add(broker_id, "broker-id", "broker: 0 = master, > 0 = slave")
    .add(store_dir, "store-dir",
         "broker: storePathRootDir (store and config/*.json)")
    .add(flush_disk_type, "flush-disk-type",
         "broker: ASYNC_FLUSH or SYNC_FLUSH")
    .add(broker_ip1, "broker-ip1",
         "broker: the IPv4 address registered for clients and written as "
         "the store host of messages (RocketMQ brokerIP1); default: --host, "
         "which must then not be 0.0.0.0")
    .add(broker_ip2, "broker-ip2",
         "broker: the IPv4 address its slaves copy from (RocketMQ "
         "brokerIP2); default: --broker-ip1")
    .add(broker_role, "broker-role",
         "broker: ASYNC_MASTER, SYNC_MASTER or SLAVE (default: SLAVE for "
         "--broker-id > 0, else ASYNC_MASTER)")
    .add(register_interval_ms, "register-interval-ms",
         "broker: registerNameServerPeriod")
    .add(auto_create_topic_enable, "auto-create-topic-enable",
         "broker: create unknown topics on send from TBW102")
    .add(auto_create_subscription_group, "auto-create-subscription-group",
         "broker: create unknown consumer groups")
    .add(mapped_file_size_commit_log, "mapped-file-size-commit-log",
         "broker: commit-log segment size in bytes")
    .add(mapped_file_size_consume_queue, "mapped-file-size-consume-queue",
         "broker: consume-queue file size in bytes (20 per message)")
    .add(max_message_size, "max-message-size",
         "broker: largest message body in bytes")
    .add(max_transfer_count_on_message_in_memory,
         "max-transfer-count-on-message-in-memory",
         "broker: most messages in one pull answer")
    .add(max_transfer_bytes_on_message_in_memory,
         "max-transfer-bytes-on-message-in-memory",
         "broker: most bytes in one pull answer (the first message always "
         "goes)")
    .add(slave_read_enable, "slave-read-enable",
         "broker: a master suggests a slave to a consumer that reads older "
         "messages than fit in memory; a slave serves reads and keeps "
         "them while they do not")
    .add(access_message_in_memory_max_ratio,
         "access-message-in-memory-max-ratio",
         "broker: percent of the machine's memory counted as in memory "
         "behind the log's end (0..100)")
    .add(sync_flush_timeout_ms, "sync-flush-timeout-ms",
         "broker: SYNC_FLUSH sends answer FLUSH_DISK_TIMEOUT after this")
    .add(disk_space_warning_level_ratio, "disk-space-warning-level-ratio",
         "broker: disk use (0..1) above which writes are refused")
    .add(disk_space_clean_forcibly_ratio, "disk-space-clean-forcibly-ratio",
         "broker: disk use (0..1) above which the oldest commit-log segments "
         "go before their retention, consumed or not")
    .add(clean_file_forcibly_enable, "clean-file-forcibly-enable",
         "broker: false keeps unconsumed data and refuses writes at the "
         "warning level instead")
    .add(file_reserved_time, "file-reserved-time",
         "broker: hours a commit-log segment is kept")
    .add(rebalance_lock_max_live_time_ms, "rebalance-lock-max-live-time-ms",
         "broker: a queue lock not renewed this long may be taken")
    .add(store_reply_message_enable, "store-reply-message-enable",
         "broker: store replies in <cluster>_REPLY_TOPIC before the push")
    .add(reject_transaction_message, "reject-transaction-message",
         "broker: refuse transactional (half) messages")
    .add(transaction_timeout_ms, "transaction-timeout-ms",
         "broker: half messages younger than this are not checked back")
    .add(transaction_check_interval_ms, "transaction-check-interval-ms",
         "broker: how often unresolved half messages are checked back")
    .add(transaction_check_max, "transaction-check-max",
         "broker: check-backs before a half message is discarded")
    .add(timer_max_delay_sec, "timer-max-delay-sec",
         "broker: timed messages due later than this are refused")
    .add(timer_precision_ms, "timer-precision-ms",
         "broker: timer slot length in ms (100, 200, 500 or 1000)");
}

} // namespace rmq::node
