// Spawns the actors of one NameServer, wires them together and puts them
// under a supervisor (actors/common/supervisor): the exit of any of them
// stops the node.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/fwd.hpp"
#include "caf/timespan.hpp"

#include "actors/common/supervisor.hpp"
#include "messages/namesrv/namesrv.hpp"

namespace rmq {

/// NameServer settings (RocketMQ NamesrvConfig; its defaults, except an
/// empty kv_config_path: rmq-node passes ~/namesrv/kvConfig.json).
struct namesrv_options {
  std::string listen_addr = "127.0.0.1";
  /// The CAF port, and the remoting one (shown as listenPort; rmq-node
  /// serves it, 0 when picked free).
  uint16_t port = 9886;
  uint16_t remoting_port = 9876;
  /// scanNotActiveBrokerInterval; zero turns the scan off.
  caf::timespan scan_interval = std::chrono::seconds{5};
  /// BROKER_CHANNEL_EXPIRED_TIME, for brokers that send no timeout.
  caf::timespan broker_timeout = std::chrono::seconds{120};
  /// kvConfigPath; empty keeps the KV config in memory only.
  std::string kv_config_path;
  /// unRegisterBrokerQueueCapacity.
  size_t unregister_queue_capacity = 3000;
  bool enable_all_topic_list = true;
  bool enable_topic_list = true;
  bool order_message_enable = false;
  bool delete_topic_with_broker_registration = false;
  bool return_order_topic_config_to_broker = true;
  /// Assembled routes the route reader keeps (0: no cache).
  size_t route_cache_entries = 100'000;
  /// Runs the KV table (file I/O) on its own thread. Off under the
  /// deterministic test scheduler.
  bool detach_io = true;
};

/// The running actors of one NameServer.
struct namesrv_node {
  namesrv_actor frontend;
  /// Every actor of the node as spawned, for shutdown (the supervisor
  /// stops the replacements it spawned).
  std::vector<caf::actor> actors;
  /// Watches `actors`; it exits with an error naming the actor when the
  /// node can no longer work. Watch it to learn that the node failed.
  supervisor_actor supervisor;
  /// The KV config table, saved at shutdown.
  caf::actor kv;

  /// Saves the KV config, stops the supervisor, then every actor.
  void stop(caf::actor_system& sys);
};

namesrv_node spawn_namesrv(caf::actor_system& sys, const namesrv_options& opts);

} // namespace rmq
