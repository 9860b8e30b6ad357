// rmq-node's flags, for both roles: one option set, so that a config file
// (apps/rmq-node/*.example.ini) uses the same keys as the command line.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "caf/actor_system.hpp"

#include "actors/common/remoting_server.hpp"
#include "actors/common/supervisor.hpp"
#include "runtime/process/home_dir.hpp"
#include "runtime/process/node_config.hpp"

namespace rmq::node {

struct options : rmq::node_config {
  std::string role = "namesrv";
  std::string host = "127.0.0.1";
  /// The CAF port; -1: the role's default (namesrv 9886, broker 10921).
  int32_t port = -1;
  /// Port of RocketMQ's remoting protocol (docs/remoting.md); -1: the
  /// role's default (namesrv 9876, broker 10911), 0 picks a free one.
  int32_t remoting_port = -1;
  /// Remoting connections: silent this long, or stalled mid-frame this
  /// long, are closed.
  int64_t remoting_idle_timeout_ms = 120'000;
  int64_t remoting_stall_timeout_ms = 10'000;
  std::string log_level = "info";
  /// Accepted connections at most (also bounded by the descriptor limit);
  /// a connection without a first whole frame this long is closed; a frame
  /// announcing more bytes is refused (0: the role's default,
  /// runtime/net/connection_guard.hpp).
  int64_t max_connections = 10'000;
  int64_t first_frame_timeout_ms = 10'000;
  int64_t max_frame_bytes = 0;
  // -- namesrv
  int64_t scan_interval_ms = 5'000;
  int64_t broker_timeout_ms = 120'000;
  std::string kv_config_path = rmq::home_dir() + "/namesrv/kvConfig.json";
  size_t unregister_queue_capacity = 3000;
  bool disable_all_topic_list = false;
  bool disable_topic_list = false;
  bool order_message_enable = false;
  bool delete_topic_with_broker_registration = false;
  // -- broker (RocketMQ BrokerConfig / MessageStoreConfig names)
  std::string namesrv;
  std::string broker_name = "broker-a";
  std::string cluster_name = "DefaultCluster";
  int64_t broker_id = 0;
  std::string store_dir = rmq::home_dir() + "/store";
  std::string flush_disk_type = "ASYNC_FLUSH";
  /// ASYNC_MASTER, SYNC_MASTER or SLAVE; empty: SLAVE for a broker id
  /// above 0, else ASYNC_MASTER.
  std::string broker_role;
  /// brokerIP1 / brokerIP2: the addresses a broker hands out (clients,
  /// replication) when they are not --host (e.g. --host=0.0.0.0).
  std::string broker_ip1;
  std::string broker_ip2;
  int64_t register_interval_ms = 30'000;
  bool auto_create_topic_enable = true;
  bool auto_create_subscription_group = true;
  int64_t mapped_file_size_commit_log = int64_t{1} << 30;
  int64_t max_message_size = 4 * 1024 * 1024;
  /// mappedFileSizeConsumeQueue: bytes per consume-queue file (20 B units).
  int64_t mapped_file_size_consume_queue = 300'000 * 20;
  int64_t sync_flush_timeout_ms = 5'000;
  /// The most messages and bytes in one pull answer (docs/broker.md);
  /// the broker's own defaults, set by the constructor.
  int64_t max_transfer_count_on_message_in_memory = 0;
  int64_t max_transfer_bytes_on_message_in_memory = 0;
  /// RocketMQ slaveReadEnable: a master points a consumer that reads far
  /// behind at a slave; a slave keeps a consumer that reads near the end.
  bool slave_read_enable = false;
  /// RocketMQ accessMessageInMemoryMaxRatio: the percent of the machine's
  /// memory within which of the log's end a read counts as in memory.
  int64_t access_message_in_memory_max_ratio = 40;
  /// RocketMQ diskSpaceWarningLevelRatio: above it writes are refused.
  double disk_space_warning_level_ratio = 0.90;
  /// RocketMQ diskSpaceCleanForciblyRatio: above it the oldest commit-log
  /// segments are deleted before their retention, consumed or not, unless
  /// cleanFileForciblyEnable is off.
  double disk_space_clean_forcibly_ratio = 0.85;
  bool clean_file_forcibly_enable = true;
  /// RocketMQ fileReservedTime, in hours.
  int64_t file_reserved_time = 72;
  /// RocketMQ rocketmq.broker.rebalance.lockMaxLiveTime.
  int64_t rebalance_lock_max_live_time_ms = 60'000;
  bool store_reply_message_enable = true;
  /// RocketMQ rejectTransactionMessage, transactionTimeOut,
  /// transactionCheckInterval, transactionCheckMax.
  bool reject_transaction_message = false;
  int64_t transaction_timeout_ms = 6'000;
  int64_t transaction_check_interval_ms = 30'000;
  int64_t transaction_check_max = 15;
  /// RocketMQ timerMaxDelaySec and timerPrecisionMs (docs/timer.md).
  int64_t timer_max_delay_sec = 3 * 86'400;
  int64_t timer_precision_ms = 1000;

  options();
};

/// Waits for what stops a node: SIGINT or SIGTERM (blocked by main, so
/// only sigwait sees them), or its supervisor stopping. A node with a dead
/// part would look alive and not work, so it exits instead and its own
/// supervisor can restart it.
class stop_watch {
public:
  stop_watch(caf::actor_system& sys, supervisor_actor sup);

  /// Joins the watchdog: call after the node stopped (which ends the
  /// supervisor, and so the watchdog).
  ~stop_watch();

  /// Blocks until a signal in `signals` or the supervisor's end; returns
  /// the signal (SIGUSR1 when the node failed).
  int wait(const sigset_t& signals, const char* component);

  /// Why the supervisor stopped, when the node failed.
  const std::string& failure() const {
    return failure_;
  }

private:
  std::string failure_;
  std::thread watchdog_;
};

/// The CAF and remoting ports of the role (namesrv or broker) when the
/// flags leave them to it.
constexpr uint16_t namesrv_caf_port = 9886;
constexpr uint16_t namesrv_remoting_port = 9876;
constexpr uint16_t broker_caf_port = 10921;
constexpr uint16_t broker_remoting_port = 10911;

/// Serves remoting on `port` (0: a free one) with `handler`; prints "ROLE
/// remoting on HOST:PORT". The server's death stops `supervisor`, so the
/// node fails as it does when any of its parts dies; under TLS every
/// connection is mutual TLS. nullopt, said on stderr, when it cannot
/// listen.
std::optional<caf::actor>
serve_remoting(caf::actor_system& sys, const options& cfg, const char* role,
               uint16_t port, remoting_handler handler,
               const supervisor_actor& supervisor);

int run_namesrv(caf::actor_system& sys, const options& cfg,
                const sigset_t& signals);

int run_broker(caf::actor_system& sys, const options& cfg,
               const sigset_t& signals);

} // namespace rmq::node
