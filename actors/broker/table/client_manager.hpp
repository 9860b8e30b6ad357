// The broker's client manager (RocketMQ ConsumerManager, ProducerManager,
// ClientManageProcessor and ClientHousekeepingService): which clients are
// in which producer and consumer groups, with each consumer group's
// subscriptions, fed by heartbeats. A client's "channel" is the actor that
// sent its heartbeat: it is monitored, and its exit drops the client at
// once; a channel silent for `channel_expired_timeout` is dropped by the
// next scan. When a clustering group's members or subscriptions change,
// every member's channel gets `consumer_ids_changed`.
//   sys.spawn(client_manager, options, subscription_groups, topics)
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/actor_addr.hpp"
#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp" // spawning needs the full type

#include "messages/broker/client_manager.hpp"
#include "messages/broker/topics.hpp"

namespace rmq {

/// Settings of the client manager (RocketMQ defaults).
struct client_manager_options {
  /// BrokerConfig#channelExpiredTimeout.
  caf::timespan channel_expired_timeout = std::chrono::seconds{120};
  /// ClientHousekeepingService's scan period.
  caf::timespan scan_interval = std::chrono::seconds{10};
  /// How long a heartbeat waits for the subscription group and topic tables.
  caf::timespan table_timeout = std::chrono::seconds{3};
  /// How long a client has to answer what the broker asks it for an admin
  /// (Broker2Client#callClient: 10 s).
  caf::timespan client_call_timeout = std::chrono::seconds{10};
};

/// State and logic of the client manager; the actor sends what it returns.
struct client_manager_state {
  using time_point = caf::actor_clock::time_point;

  /// A client in a group (RocketMQ ClientChannelInfo).
  struct member {
    std::string client_id;
    time_point last_update;
  };

  /// RocketMQ ConsumerGroupInfo.
  struct consumer_group {
    consume_type type = consume_type::consume_passively;
    message_model model = message_model::clustering;
    consume_from_where from_where
      = consume_from_where::consume_from_last_offset;
    /// Whether members are told of changes (the subscription group's
    /// notifyConsumerIdsChangedEnable at the last heartbeat).
    bool notify = true;
    std::map<caf::actor_addr, member> members;
    std::map<std::string, subscription_data> subscriptions;
  };

  // -- member variables ------------------------------------------------------

  std::map<std::string, consumer_group> consumers;

  /// Producer group -> members.
  std::map<std::string, std::map<caf::actor_addr, member>> producers;

  /// A monitored channel and its last heartbeat.
  struct channel {
    caf::actor hdl;
    time_point last_seen;
    /// Address, language and version of its last heartbeat.
    std::string client_addr;
    std::string language;
    int32_t version = 0;
  };

  /// Every monitored channel.
  std::map<caf::actor_addr, channel> channels;

  client_manager_options options;

  subscription_group_table_actor groups;

  topic_config_table_actor topics;

  int64_t heartbeats = 0;
  int64_t notifications = 0;     ///< consumer_ids_changed messages sent.
  int64_t expired_channels = 0;  ///< Dropped by a scan.
  int64_t closed_channels = 0;   ///< Dropped because the channel exited.
  int64_t skipped_consumers = 0; ///< Heartbeats for groups that don't exist.

  /// Set by the actor so that dumps can show idle times.
  time_point dump_now;

  /// What `self->name()` returns; also the "actor" field of dumps.
  static const char* name;

  // -- logic -----------------------------------------------------------------

  /// Adds or refreshes the channel in a producer group.
  void register_producer(const std::string& group, const caf::actor_addr& ch,
                         const std::string& client_id, time_point now);

  /// Adds or refreshes the channel in a consumer group and updates its
  /// subscriptions (RocketMQ registerConsumer). Returns whether the
  /// members or the set of subscribed topics changed and the group is one
  /// whose members are to be told.
  bool register_consumer(const consumer_data& data, const caf::actor_addr& ch,
                         const std::string& client_id, bool notify,
                         time_point now);

  /// Removes the client from the groups named (empty: none). Returns the
  /// consumer groups to notify and, in `dropped`, the client's channels
  /// now in no group.
  std::vector<std::string> unregister(const unregister_client_request& x,
                                      std::vector<caf::actor_addr>& dropped);

  /// Removes the channel from every group. Returns the consumer groups to
  /// notify.
  std::vector<std::string> drop_channel(const caf::actor_addr& ch);

  /// Removes every member idle for more than the expiry timeout; returns
  /// the consumer groups to notify and, in `dropped`, the channels now in
  /// no group, and those in none whose last heartbeat is as old (e.g. of
  /// a client whose only group does not exist).
  std::vector<std::string> expire(time_point now,
                                  std::vector<caf::actor_addr>& dropped);

  /// The sorted client ids of a group, or a system_error as RocketMQ.
  caf::expected<consumer_list> consumer_ids(const std::string& group) const;

  /// The live channels of a producer group, the most recently heard
  /// first.
  std::vector<caf::actor> producer_channels(const std::string& group) const;

  /// The channel of a client id in any group, or a system_error naming
  /// the client when it is not online.
  caf::expected<caf::actor> client_channel(const std::string& client_id) const;

  /// The channel of `client_id` in consumer group `group`, or a
  /// system_error in RocketMQ's words when it is not there.
  caf::expected<caf::actor>
  consumer_channel(const std::string& group,
                   const std::string& client_id) const;

  /// A consumer group's members with their channels' addresses, and its
  /// subscriptions (RocketMQ getConsumerConnectionList); system_error
  /// when it has none.
  caf::expected<consumer_connection>
  connections_of(const std::string& group) const;

  /// Whether the channel is in any group.
  bool in_use(const caf::actor_addr& ch) const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;
};

/// Spawns with `sys.spawn(client_manager, options, groups, topics)`.
client_manager_actor::behavior_type client_manager(
  client_manager_actor::stateful_pointer<client_manager_state> self,
  client_manager_options options, subscription_group_table_actor groups,
  topic_config_table_actor topics);

} // namespace rmq
