// Opens the message store of one broker, spawns the broker's actors, wires
// them together and puts them under a supervisor (actors/common/
// supervisor): the exit of any of them stops the node. See docs/broker.md,
// "Broker node".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/expected.hpp"
#include "caf/fwd.hpp"
#include "caf/timespan.hpp"

#include "actors/broker/processor/pull_processor.hpp"
#include "actors/broker/store/store_actors.hpp"
#include "actors/common/supervisor.hpp"
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
#include "messages/broker/transaction_service.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/timer_message.hpp"
#include "runtime/storage/store_config.hpp"

namespace rmq {

/// Broker settings (RocketMQ BrokerConfig and MessageStoreConfig names and
/// defaults, except `broker_name`: RocketMQ takes the host name).
struct broker_options {
  /// brokerName.
  std::string broker_name = "broker-a";
  /// brokerClusterName.
  std::string cluster_name = "DefaultCluster";
  /// brokerId: 0 = master.
  int64_t broker_id = 0;
  /// Where the broker listens (rmq-node publishes there); also the
  /// address it hands out unless `broker_ip1` is set.
  std::string listen_host = "127.0.0.1";
  /// brokerIP1 (IPv4): the address registered for clients and the store
  /// host of offsetMsgIds; empty: `listen_host`, which must then be an
  /// address clients reach (not 0.0.0.0).
  std::string broker_ip1;
  /// brokerIP2 (IPv4): the address slaves copy from (the registration's
  /// haServerAddr, on the CAF port); empty: `broker_ip1`.
  std::string broker_ip2;
  uint16_t port = 10921;
  /// The port of RocketMQ's remoting protocol (RocketMQ's listenPort,
  /// 10911), registered beside `port`; 0: none (remoting clients get no
  /// route to this broker).
  uint16_t remoting_port = 0;
  /// storePathRootDir: the store, and `config/` for topics.json,
  /// consumerOffset.json, subscriptionGroup.json and delayOffset.json.
  std::string store_dir;
  /// flushDiskType.
  storage::flush_mode flush = storage::flush_mode::async;
  /// namesrvAddr, "host:port;host:port"; empty registers nowhere.
  std::string namesrv_addr;
  /// registerNameServerPeriod.
  caf::timespan register_interval = std::chrono::seconds{30};
  /// autoCreateTopicEnable.
  bool auto_create_topic = true;
  /// autoCreateSubscriptionGroup.
  bool auto_create_subscription_group = true;
  /// The rest of the store's settings; `dir`, `flush`, `store_ip` and
  /// `store_port` are set from the fields above. Tests shrink the sizes.
  storage::store_config store;
  /// How often the queue service writes its checkpoint (zero: never).
  caf::timespan checkpoint_interval = std::chrono::seconds{1};
  /// Runs the actors that do file I/O (store actors, the three tables with
  /// files) on their own threads. Off under the deterministic test
  /// scheduler.
  bool detach_io = true;
  /// Runs the commit-log writer on its own thread too (with detach_io);
  /// off by default: the writer never waits on the disk, and on the
  /// scheduler a send crosses one thread less (actors/broker/store/store_actors.hpp).
  bool detach_writer = false;
  /// The registrar's connector (namesrv_registrar_options::connector);
  /// null: the network. Tests pass one that hands out in-process
  /// NameServers.
  caf::actor connector;
  /// For what RocketMQ stores as wall-clock time (data versions, store
  /// timestamps, UNIQ_KEYs): every actor of the node gets this one.
  rmq::wall_clock wall_clock;
  /// The registrar's event hook (namesrv_registrar_options::on_event):
  /// rmq-node prints them, so scripts and tests see registrations.
  std::function<void(const std::string&)> on_registrar_event;
  /// rmq-admin promote / demote, checked by the front; rmq-node restarts
  /// the node in its new role (docs/replication.md, "Failover"). None:
  /// role changes are refused.
  std::function<caf::error(const role_change_request&)> on_role_change;
  /// The registrar waits for broker_node::open before it registers
  /// (rmq-node: once the port is published). A registrar respawned
  /// after a crash registers at once.
  bool register_when_opened = false;
  /// A master that starts after a promotion begins a new term
  /// (docs/replication.md, "Epochs"); a master also does when its store
  /// has none yet or its recovery cut a torn tail.
  bool new_term = false;
  /// Seeds the send processor's queue pick (0: random).
  uint64_t seed = 0;
  /// RocketMQ rocketmq.broker.rebalance.lockMaxLiveTime: a queue lock not
  /// renewed for this long may be taken by another client (tests shrink
  /// it, so a SIGKILLed orderly consumer's queues move on in seconds).
  caf::timespan rebalance_lock_max_live_time = std::chrono::seconds{60};
  /// maxTransferCountOnMessageInMemory and ...BytesOnMessageInMemory: the
  /// most messages and bytes one pull answer carries.
  int32_t max_transfer_count = pull_processor_config{}.max_transfer_count;
  int32_t max_transfer_bytes = pull_processor_config{}.max_transfer_bytes;
  /// slaveReadEnable (pull_processor_config).
  bool slave_read_enable = false;
  /// storeReplyMessageEnable: replies are stored before they are pushed.
  bool store_reply_message_enable = true;
  /// rejectTransactionMessage: refuse transactional sends.
  bool reject_transaction_message = false;
  /// transactionTimeOut: a half message younger than this is not checked.
  caf::timespan transaction_timeout = std::chrono::seconds{6};
  /// transactionCheckInterval: how often half messages are checked back.
  caf::timespan transaction_check_interval = std::chrono::seconds{30};
  /// transactionCheckMax: checks before a half message is discarded.
  int32_t transaction_check_max = 15;
  /// timerMaxDelaySec and timerPrecisionMs (docs/timer.md).
  timer_settings timer;
  /// Timer-log entries per segment file (tests shrink it).
  int64_t timer_log_segment_entries = 1 << 20;
};

/// The running actors of one broker.
struct broker_node {
  store_actors store;
  topic_config_table_actor topics;
  consumer_offset_table_actor offsets;
  subscription_group_table_actor groups;
  queue_lock_table_actor locks;
  client_manager_actor clients;
  send_processor_actor send;
  /// CONSUMER_SEND_MSG_BACK: retry and dead-letter copies.
  send_back_processor_actor send_back;
  /// Moves due delayed messages from SCHEDULE_TOPIC_XXXX to their topic.
  schedule_service_actor schedule;
  pull_hold_service_actor hold;
  pull_processor_actor pull;
  /// Topic stats, consumer progress, runtime figures.
  broker_admin_service_actor admin;
  /// What rmq-node publishes: the only handle clients get.
  broker_actor frontend;
  /// The first registrar; the supervisor respawns it, so ask the
  /// supervisor (`get_atom`, "namesrv_registrar") for the current one.
  namesrv_registrar_actor registrar;
  /// Watches `actors`; it exits with an error naming the actor when the
  /// node can no longer work. Watch it to learn that the node failed.
  supervisor_actor supervisor;
  /// Every long-lived actor of the node, for shutdown.
  std::vector<caf::actor> actors;
  /// SEND_REPLY_MESSAGE: stores replies and pushes them to requesters.
  reply_processor_actor reply;
  /// END_TRANSACTION: commits and rollbacks of half messages.
  end_transaction_processor_actor end_transaction;
  /// Checks unresolved half messages back with their producers.
  transaction_check_service_actor transaction_check;
  /// Moves due timed messages from rmq_sys_wheel_timer to their topic.
  timer_service_actor timer;
  /// A master's replication service (broker id 0) or a slave's client.
  ha_service_actor ha;
  metadata_service_actor metadata; // a master's
  ha_client_actor ha_client;
  slave_sync_actor slave_sync; // a slave's

  /// Starts the graceful stop without waiting: spawns and returns an actor
  /// that stops the supervisor, asks the registrar to unregister (bounded),
  /// flushes the offset table, then stops every other actor (the
  /// commit-log writer's exit closes the store) and quits. Tests on the
  /// deterministic scheduler run it with `sched.run()`. Keep the handle
  /// until it is done: CAF ends an actor nobody references.
  caf::actor begin_stop(caf::actor_system& sys);

  /// begin_stop, then waits (bounded) until it is done. Blocks: not for
  /// the deterministic scheduler.
  void stop(caf::actor_system& sys);

  /// The broker's port is published: tells the registrar (with
  /// register_when_opened) to register.
  void open() const;
};

/// Opens the store (its error is returned), spawns and wires every actor.
caf::expected<broker_node> spawn_broker(caf::actor_system& sys,
                                        const broker_options& opts);

/// Returns `<store_root>/config/consumerOffset.json`.
std::string consumer_offsets_json_path(const std::string& store_root);

/// Returns `<store_root>/config/subscriptionGroup.json`.
std::string subscription_groups_json_path(const std::string& store_root);

} // namespace rmq
