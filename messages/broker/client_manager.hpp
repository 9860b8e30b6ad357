// The broker's client manager, subscription group table and queue lock
// table (RocketMQ ConsumerManager / ProducerManager / ClientManageProcessor,
// SubscriptionGroupManager, RebalanceLockManager): their typed interfaces
// and requests. The actors are in actors/broker/table/client_manager.*,
// subscription_group_table.* and queue_lock_table.*.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

// -- heartbeat data (RocketMQ HeartbeatData) ----------------------------------

/// How a consumer takes messages (RocketMQ ConsumeType).
enum class consume_type : uint8_t {
  consume_actively = 0,  ///< PULL consumer
  consume_passively = 1, ///< PUSH consumer
};

/// Who gets a message (RocketMQ MessageModel).
enum class message_model : uint8_t {
  broadcasting = 0, ///< every member of the group
  clustering = 1,   ///< one member of the group
};

/// Where a new consumer group starts (RocketMQ ConsumeFromWhere).
enum class consume_from_where : uint8_t {
  consume_from_last_offset = 0,
  consume_from_first_offset = 1,
  consume_from_timestamp = 2,
};

/// The enums travel as RocketMQ's names in JSON ("CLUSTERING", ...); an
/// unknown name reads as the default.
void to_json(nlohmann::json& out, consume_type x);
void from_json(const nlohmann::json& in, consume_type& x);
void to_json(nlohmann::json& out, message_model x);
void from_json(const nlohmann::json& in, message_model& x);
void to_json(nlohmann::json& out, consume_from_where x);
void from_json(const nlohmann::json& in, consume_from_where& x);

/// One topic a consumer subscribes to (RocketMQ SubscriptionData).
struct subscription_data {
  std::string topic;
  /// The expression as the client wrote it, e.g. "TagA || TagB" or "*".
  std::string sub_string = "*";
  std::string expression_type = "TAG";
  std::vector<std::string> tags_set;
  /// Hash codes of the tags.
  std::vector<int32_t> code_set;
  /// A newer version (the client's time of subscribing) replaces an older.
  int64_t sub_version = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, subscription_data& x) {
  return f(caf::meta::type_name("rmq.subscription_data"), x.topic, x.sub_string,
           x.expression_type, x.tags_set, x.code_set, x.sub_version);
}

RMQ_DECLARE_MESSAGE(subscription_data);

/// One consumer group of a client (RocketMQ ConsumerData).
struct consumer_data {
  std::string group_name;
  consume_type type = consume_type::consume_passively;
  message_model model = message_model::clustering;
  consume_from_where from_where = consume_from_where::consume_from_last_offset;
  std::vector<subscription_data> subscriptions;
  bool unit_mode = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_data& x) {
  return f(caf::meta::type_name("rmq.consumer_data"), x.group_name, x.type,
           x.model, x.from_where, x.subscriptions, x.unit_mode);
}

RMQ_DECLARE_MESSAGE(consumer_data);

/// HEART_BEAT (34): a client's producer and consumer groups. The sending
/// actor is the client's channel: the client manager monitors it, and
/// sends it `consumer_ids_changed` when a group it is in changes.
struct client_heartbeat {
  /// `ip@instanceName[@unitName]`.
  std::string client_id;
  std::vector<std::string> producer_groups;
  std::vector<consumer_data> consumers;
  /// What GET_CONSUMER_CONNECTION_LIST shows of the client: its address
  /// as the broker sees it (empty: the client id's), the language and
  /// the version its requests name.
  std::string client_addr;
  std::string language = "CPP";
  int32_t version = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, client_heartbeat& x) {
  return f(caf::meta::type_name("rmq.client_heartbeat"), x.client_id,
           x.producer_groups, x.consumers, x.client_addr, x.language,
           x.version);
}

RMQ_DECLARE_MESSAGE(client_heartbeat);

/// UNREGISTER_CLIENT (35): a client leaves a producer group, a consumer
/// group, or both (an empty group name means none).
struct unregister_client_request {
  std::string client_id;
  std::string producer_group;
  std::string consumer_group;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, unregister_client_request& x) {
  return f(caf::meta::type_name("rmq.unregister_client_request"), x.client_id,
           x.producer_group, x.consumer_group);
}

RMQ_DECLARE_MESSAGE(unregister_client_request);

/// GET_CONSUMER_LIST_BY_GROUP (38).
struct get_consumer_list_request {
  std::string group;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_consumer_list_request& x) {
  return f(caf::meta::type_name("rmq.get_consumer_list_request"), x.group);
}

RMQ_DECLARE_MESSAGE(get_consumer_list_request);

/// The client ids of a consumer group, sorted.
struct consumer_list {
  std::vector<std::string> client_ids;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_list& x) {
  return f(caf::meta::type_name("rmq.consumer_list"), x.client_ids);
}

RMQ_DECLARE_MESSAGE(consumer_list);

/// One member of a consumer group as mqadmin consumerConnection shows it
/// (RocketMQ Connection).
struct client_connection {
  std::string client_id;
  std::string client_addr;
  std::string language;
  int32_t version = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, client_connection& x) {
  return f(caf::meta::type_name("rmq.client_connection"), x.client_id,
           x.client_addr, x.language, x.version);
}

RMQ_DECLARE_MESSAGE(client_connection);

/// GET_CONSUMER_CONNECTION_LIST (203).
struct get_consumer_connection_request {
  std::string group;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_consumer_connection_request& x) {
  return f(caf::meta::type_name("rmq.get_consumer_connection_request"),
           x.group);
}

RMQ_DECLARE_MESSAGE(get_consumer_connection_request);

/// A consumer group's members and what they subscribe to (RocketMQ
/// ConsumerConnection); system_error when nobody is online.
struct consumer_connection {
  std::vector<client_connection> connections;
  std::vector<subscription_data> subscriptions;
  consume_type type = consume_type::consume_passively;
  message_model model = message_model::clustering;
  consume_from_where from_where = consume_from_where::consume_from_last_offset;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_connection& x) {
  return f(caf::meta::type_name("rmq.consumer_connection"), x.connections,
           x.subscriptions, x.type, x.model, x.from_where);
}

RMQ_DECLARE_MESSAGE(consumer_connection);

/// GET_CONSUMER_RUNNING_INFO (307): what one client says of its consumer
/// of `group` (RocketMQ ConsumerRunningInfo). An admin asks the broker;
/// the broker asks that client's channel, which answers for the client.
struct get_consumer_running_info_request {
  std::string group;
  std::string client_id;
  /// The client adds its threads' stacks (a Java client's jstack).
  bool jstack = false;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_consumer_running_info_request& x) {
  return f(caf::meta::type_name("rmq.get_consumer_running_info_request"),
           x.group, x.client_id, x.jstack);
}

RMQ_DECLARE_MESSAGE(get_consumer_running_info_request);

/// ConsumerRunningInfo as the client wrote it: JSON text (in fastjson's
/// words from a RocketMQ client), passed on unread.
struct consumer_running_info {
  std::string body;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, consumer_running_info& x) {
  return f(caf::meta::type_name("rmq.consumer_running_info"), x.body);
}

RMQ_DECLARE_MESSAGE(consumer_running_info);

/// NOTIFY_CONSUMER_IDS_CHANGED (40), sent by the broker to every member's
/// channel when a clustering group's members or subscriptions change: the
/// members then rebalance at once rather than at their next 20 s round.
struct consumer_ids_changed {
  std::string group;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_ids_changed& x) {
  return f(caf::meta::type_name("rmq.consumer_ids_changed"), x.group);
}

RMQ_DECLARE_MESSAGE(consumer_ids_changed);

// -- queue locks (RocketMQ RebalanceLockManager) ------------------------------

/// A queue of a topic on a broker (RocketMQ MessageQueue).
struct client_queue {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, client_queue& x) {
  return f(caf::meta::type_name("rmq.client_queue"), x.topic, x.broker_name,
           x.queue_id);
}

RMQ_DECLARE_MESSAGE(client_queue);

/// Orders queues by topic, broker name, queue id (for sets and maps).
bool operator<(const client_queue& x, const client_queue& y);

/// LOCK_BATCH_MQ (41): an orderly consumer asks for the queues it was
/// assigned; answers the ones it now holds.
struct lock_batch_request {
  std::string group;
  std::string client_id;
  std::vector<client_queue> queues;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lock_batch_request& x) {
  return f(caf::meta::type_name("rmq.lock_batch_request"), x.group, x.client_id,
           x.queues);
}

RMQ_DECLARE_MESSAGE(lock_batch_request);

/// UNLOCK_BATCH_MQ (42): releases the queues the client holds.
struct unlock_batch_request {
  std::string group;
  std::string client_id;
  std::vector<client_queue> queues;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, unlock_batch_request& x) {
  return f(caf::meta::type_name("rmq.unlock_batch_request"), x.group,
           x.client_id, x.queues);
}

RMQ_DECLARE_MESSAGE(unlock_batch_request);

/// The queues a lock request holds after it, sorted.
struct locked_queues {
  std::vector<client_queue> queues;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, locked_queues& x) {
  return f(caf::meta::type_name("rmq.locked_queues"), x.queues);
}

RMQ_DECLARE_MESSAGE(locked_queues);

// -- subscription groups (RocketMQ SubscriptionGroupConfig) -------------------

/// A consumer group as the broker configures it.
struct subscription_group_config {
  std::string group_name;
  bool consume_enable = true;
  bool consume_from_min_enable = true;
  bool consume_broadcast_enable = true;
  bool consume_message_orderly = false;
  int32_t retry_queue_nums = 1;
  int32_t retry_max_times = 16;
  /// 0 = the master.
  int64_t broker_id = 0;
  int64_t which_broker_when_consume_slowly = 1;
  bool notify_consumer_ids_changed_enable = true;
  int32_t group_sys_flag = 0;
  int32_t consume_timeout_minute = 15;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, subscription_group_config& x) {
  return f(caf::meta::type_name("rmq.subscription_group_config"), x.group_name,
           x.consume_enable, x.consume_from_min_enable,
           x.consume_broadcast_enable, x.consume_message_orderly,
           x.retry_queue_nums, x.retry_max_times, x.broker_id,
           x.which_broker_when_consume_slowly,
           x.notify_consumer_ids_changed_enable, x.group_sys_flag,
           x.consume_timeout_minute);
}

RMQ_DECLARE_MESSAGE(subscription_group_config);

/// Every subscription group with the table's data version (RocketMQ
/// SubscriptionGroupWrapper).
struct subscription_group_set {
  std::vector<subscription_group_config> groups;
  data_version version;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, subscription_group_set& x) {
  return f(caf::meta::type_name("rmq.subscription_group_set"), x.groups,
           x.version);
}

RMQ_DECLARE_MESSAGE(subscription_group_set);

/// What a heartbeat or a pull asks for: the group's config, auto-created
/// (and persisted) when missing and the table's autoCreateSubscriptionGroup
/// is on; otherwise subscription_group_not_exist (RocketMQ
/// findSubscriptionGroupConfig).
struct find_subscription_group_request {
  std::string group;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, find_subscription_group_request& x) {
  return f(caf::meta::type_name("rmq.find_subscription_group_request"),
           x.group);
}

RMQ_DECLARE_MESSAGE(find_subscription_group_request);

// -- pushes to clients (transaction check-backs, replies) ---------------------

/// The channels of a producer group's live members, the most recently
/// heard first (an empty list when none is online): where a transaction
/// check-back goes (RocketMQ ProducerManager#getAvailableChannel).
struct find_producer_channels {
  std::string group;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, find_producer_channels& x) {
  return f(caf::meta::type_name("rmq.find_producer_channels"), x.group);
}

RMQ_DECLARE_MESSAGE(find_producer_channels);

/// The channel of one client by client id (`ip@instanceName`): where a
/// reply to a request goes (RocketMQ ProducerManager#findChannel). Answers
/// system_error when the client is not online, as RocketMQ's
/// ReplyMessageProcessor does.
struct find_client_channel {
  std::string client_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, find_client_channel& x) {
  return f(caf::meta::type_name("rmq.find_client_channel"), x.client_id);
}

RMQ_DECLARE_MESSAGE(find_client_channel);

// -- interfaces ---------------------------------------------------------------

/// Interface of the subscription group table. Every change bumps the data
/// version and is persisted (config/subscriptionGroup.json, atomically)
/// before it is answered; a failed save rolls it back (`io_error`).
using subscription_group_table_actor = dumpable_actor::extend<
  // One group's config, or subscription_group_not_exist.
  caf::replies_to<caf::get_atom, std::string>::with<subscription_group_config>,
  // Every group and the data version.
  caf::replies_to<caf::get_atom>::with<subscription_group_set>,
  // UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200); answers the data version.
  caf::replies_to<caf::put_atom, subscription_group_config>::with<data_version>,
  // DELETE_SUBSCRIPTIONGROUP (207); unknown groups succeed.
  caf::replies_to<caf::delete_atom, std::string>::with<data_version>,
  // A slave takes its master's groups and data version whole.
  caf::reacts_to<sync_atom, subscription_group_set>,
  caf::replies_to<find_subscription_group_request>::with<
    subscription_group_config>,
  // To itself: saves again after a failed save.
  caf::reacts_to<save_atom>>;

/// Interface of the queue lock table (memory only, as in RocketMQ).
using queue_lock_table_actor = dumpable_actor::extend<
  caf::replies_to<lock_batch_request>::with<locked_queues>,
  caf::replies_to<unlock_batch_request>::with<caf::ok_atom>>;

/// Interface of the client manager. The sender of a heartbeat is the
/// client's channel (see client_heartbeat); a front door that relays must
/// `delegate`, so that the sender stays the client.
using client_manager_actor = dumpable_actor::extend<
  caf::replies_to<client_heartbeat>::with<caf::ok_atom>,
  caf::replies_to<unregister_client_request>::with<caf::ok_atom>,
  caf::replies_to<get_consumer_list_request>::with<consumer_list>,
  caf::replies_to<get_consumer_connection_request>::with<consumer_connection>,
  // Asks the client's channel; "not online" when the client is not in
  // the group.
  caf::replies_to<get_consumer_running_info_request>::with<
    consumer_running_info>,
  // Channels for pushes from the broker (send with caf::anon_send: a
  // typed actor may not send to an untyped handle).
  caf::replies_to<find_producer_channels>::with<std::vector<caf::actor>>,
  caf::replies_to<find_client_channel>::with<caf::actor>,
  // The housekeeping scan (every 10 s, the actor's own timer).
  caf::reacts_to<tick_atom>>;

} // namespace rmq
