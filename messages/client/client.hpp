// The client side (RocketMQ MQClientInstance, DefaultMQProducer): what a
// program's producers and consumers send to each other inside one process,
// and the typed interfaces of the client instance's actors (implemented in
// actors/client/). One client instance per process and NameServer list is
// shared by every producer and consumer of the process.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/client_manager.hpp"
#include "messages/broker/pull.hpp"
#include "messages/broker/reply.hpp"
#include "messages/broker/send.hpp"
#include "messages/broker/send_back.hpp"
#include "messages/broker/transaction.hpp"
#include "messages/client/received_message.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

// -- atoms --------------------------------------------------------------------

/// A topic's route: asked of the route cache, pushed by it to listeners.
using route_atom = caf::atom_constant<caf::atom("route")>;

/// Refreshes one topic's route at once (a broker said the topic moved).
using refresh_atom = caf::atom_constant<caf::atom("refresh")>;

/// A connection to a peer was lost (pushed by the peer directory).
using peer_lost_atom = caf::atom_constant<caf::atom("peerlost")>;

/// The brokers a client instance talks to (heartbeats).
using brokers_atom = caf::atom_constant<caf::atom("brokers")>;

/// Sends with retries over brokers (sync semantics).
using send_atom = caf::atom_constant<caf::atom("send")>;

/// Sends bounded and auto-batched (async semantics).
using async_atom = caf::atom_constant<caf::atom("async")>;

/// Sends without waiting for or reporting a result.
using oneway_atom = caf::atom_constant<caf::atom("oneway")>;

/// The writable queues of a topic, for queue selectors.
using queues_atom = caf::atom_constant<caf::atom("queues")>;

/// The latency-fault table's state, asked or pushed.
using fault_atom = caf::atom_constant<caf::atom("fault")>;

/// A producer group (heartbeats, unregistration).
using producer_atom = caf::atom_constant<caf::atom("producer")>;

/// A consumer group (heartbeats, unregistration).
using consumer_atom = caf::atom_constant<caf::atom("consumer")>;

/// Stops a producer or consumer: in-flight sends end, groups unregister.
using shutdown_atom = caf::atom_constant<caf::atom("shutdown")>;

/// A transaction's half message (send loop), a transactional send
/// (transaction producer), a check-back subscription (heartbeat sender).
using transaction_atom = caf::atom_constant<caf::atom("txn")>;

/// Sends a request and waits for its reply (request-reply,
/// docs/request-reply.md).
using request_atom = caf::atom_constant<caf::atom("request")>;

/// One heartbeat round now, answered when every broker answered.
using heartbeat_atom = caf::atom_constant<caf::atom("heartbeat")>;

// -- messages -----------------------------------------------------------------

/// One queue of a topic on one broker (RocketMQ MessageQueue).
struct message_queue {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, message_queue& x) {
  return f(caf::meta::type_name("rmq.message_queue"), x.topic, x.broker_name,
           x.queue_id);
}

RMQ_DECLARE_MESSAGE(message_queue);

/// Orders by topic, broker name, queue id (RocketMQ's compareTo).
bool operator<(const message_queue& x, const message_queue& y);

/// A message as a program writes it (RocketMQ Message). The producer turns
/// tags, keys and the delay level into properties (TAGS, KEYS, DELAY) and
/// adds UNIQ_KEY; `properties` holds the user's own.
struct client_message {
  std::string topic;
  std::string tags;
  /// Several keys are separated by a space (RocketMQ KEY_SEPARATOR).
  std::string keys;
  std::string body;
  std::map<std::string, std::string> properties;
  /// 0: none; 1..18: RocketMQ's delay levels.
  int32_t delay_level = 0;
  int32_t flag = 0;
  /// Wall-clock ms at which the message is due (RocketMQ 5
  /// setDeliverTimeMs, TIMER_DELIVER_MS); 0: none.
  int64_t deliver_time_ms = 0;
  /// Delay in ms from its arrival at the broker (RocketMQ 5
  /// setDelayTimeMs, TIMER_DELAY_MS); 0: none.
  int64_t delay_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, client_message& x) {
  return f(caf::meta::type_name("rmq.client_message"), x.topic, x.tags, x.keys,
           x.body, x.properties, x.delay_level, x.flag, x.deliver_time_ms,
           x.delay_ms);
}

RMQ_DECLARE_MESSAGE(client_message);

/// What a successful send reports (RocketMQ SendResult).
struct client_send_result {
  uint8_t status = 0; // a send_status
  /// UNIQ_KEY; for a batch the entries' ids joined with commas.
  std::string msg_id;
  /// Store host + commit-log offset; joined with commas for a batch.
  std::string offset_msg_id;
  message_queue queue;
  /// The first message's offset in its queue.
  int64_t queue_offset = 0;
  /// One per message, in the order sent.
  std::vector<send_entry> entries;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, client_send_result& x) {
  return f(caf::meta::type_name("rmq.client_send_result"), x.status, x.msg_id,
           x.offset_msg_id, x.queue, x.queue_offset, x.entries);
}

RMQ_DECLARE_MESSAGE(client_send_result);

/// One send's outcome for the latency-fault table (RocketMQ
/// updateFaultItem): `isolation` for a failure that must keep the broker
/// out as if it had taken 10 s; `reachable` false when it did not answer.
struct fault_report {
  std::string broker_name;
  int64_t latency_ms = 0;
  bool isolation = false;
  bool reachable = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fault_report& x) {
  return f(caf::meta::type_name("rmq.fault_report"), x.broker_name,
           x.latency_ms, x.isolation, x.reachable);
}

RMQ_DECLARE_MESSAGE(fault_report);

/// One broker in the latency-fault table (RocketMQ FaultItem).
struct fault_item {
  std::string broker_name;
  int64_t latency_ms = 0;
  /// Actor-clock time (ns since the clock's epoch) from which the broker
  /// is available again.
  int64_t available_at_ns = 0;
  bool reachable = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fault_item& x) {
  return f(caf::meta::type_name("rmq.fault_item"), x.broker_name, x.latency_ms,
           x.available_at_ns, x.reachable);
}

RMQ_DECLARE_MESSAGE(fault_item);

/// The whole latency-fault table; brokers not in it are available and
/// reachable.
struct fault_snapshot {
  std::vector<fault_item> items;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fault_snapshot& x) {
  return f(caf::meta::type_name("rmq.fault_snapshot"), x.items);
}

RMQ_DECLARE_MESSAGE(fault_snapshot);

// -- interfaces ---------------------------------------------------------------

/// The part of a broker's interface that clients use: broker_actor
/// (messages/broker/broker.hpp) extends it, and tests stand in for a broker
/// by implementing just this. Clients that commit offsets one-way send the
/// update_offset_request anonymously.
using client_broker_actor = dumpable_actor::extend<
  caf::replies_to<send_message_request>::with<send_result>,
  caf::replies_to<pull_message_request>::with<pull_message_result>,
  caf::replies_to<consumer_send_back_request>::with<caf::ok_atom>,
  caf::replies_to<client_heartbeat>::with<caf::ok_atom>,
  caf::replies_to<unregister_client_request>::with<caf::ok_atom>,
  caf::replies_to<get_consumer_list_request>::with<consumer_list>,
  caf::replies_to<lock_batch_request>::with<locked_queues>,
  caf::replies_to<unlock_batch_request>::with<caf::ok_atom>,
  caf::replies_to<query_offset_request>::with<int64_t>,
  caf::replies_to<update_offset_request>::with<caf::ok_atom>,
  caf::replies_to<get_offset_request>::with<queue_offsets>,
  caf::replies_to<search_offset_request>::with<int64_t>>;

/// The part of a NameServer's interface (messages/namesrv/namesrv.hpp) that
/// clients use.
using client_namesrv_actor = dumpable_actor::extend<
  caf::replies_to<get_route_info_request>::with<topic_route_data>>;

/// Listener of the peer directory: told when a connection is lost.
using peer_listener_actor
  = caf::typed_actor<caf::reacts_to<peer_lost_atom, std::string>>;

/// Connects to brokers and NameServers by address ("host:port") with a
/// timeout, keeps one handle per address, watches it, and tells its
/// listeners when one goes down. Connect errors: the connect error
/// (request_timeout, cannot_connect_to_node, ...) as CAF reports it.
using peer_directory_actor = dumpable_actor::extend<
  caf::replies_to<caf::connect_atom, std::string>::with<client_broker_actor>,
  caf::replies_to<caf::connect_atom, route_atom,
                  std::string>::with<client_namesrv_actor>,
  // Forgets an address (its peer failed a request); the next connect
  // opens a new connection.
  caf::reacts_to<caf::delete_atom, std::string>,
  caf::reacts_to<caf::subscribe_atom, peer_listener_actor>>;

/// Listener of the route cache: gets every changed route of a topic it
/// asked for.
using route_listener_actor
  = caf::typed_actor<caf::reacts_to<route_atom, std::string, topic_route_data>>;

/// Keeps the routes of the topics in use (RocketMQ
/// updateTopicRouteInfoFromNameServer): asks one live NameServer every
/// pollNameServerInterval (30 s), rotates to the next when one fails,
/// keeps the last good route when all are down.
using route_cache_actor = dumpable_actor::extend<
  // The cached route, or one fetched now; topic_not_exist when the
  // NameServers know no route for it, service_not_available when none
  // answers and nothing is cached.
  caf::replies_to<route_atom, std::string>::with<topic_route_data>,
  // Fetches one topic's route at once.
  caf::reacts_to<refresh_atom, std::string>,
  // Every broker of every cached route (heartbeats).
  caf::replies_to<brokers_atom>::with<std::vector<broker_data>>,
  caf::reacts_to<caf::subscribe_atom, route_listener_actor>,
  caf::reacts_to<peer_lost_atom, std::string>, caf::reacts_to<caf::tick_atom>>;

/// Gets the broker's check-backs (CHECK_TRANSACTION_STATE) of one producer
/// group: a transaction producer, subscribed at the heartbeat sender.
using transaction_check_listener_actor
  = caf::typed_actor<caf::reacts_to<check_transaction_state>>;

/// Sends the client heartbeat (client id, producer and consumer groups) to
/// the brokers every heartbeatBrokerInterval (30 s) and at once when a
/// group is added; unregisters groups (UNREGISTER_CLIENT) when they leave.
/// Brokers see it as the client's channel: it gets consumer_ids_changed
/// and forwards it to its listeners, and check_transaction_state, which
/// it forwards to the transaction producers of the group.
using client_heartbeat_service_actor = dumpable_actor::extend<
  caf::replies_to<producer_atom, std::string>::with<caf::ok_atom>,
  caf::replies_to<consumer_atom, consumer_data>::with<caf::ok_atom>,
  // Unregisters a producer group (`producer_atom`) or consumer group
  // (`consumer_atom`) from every broker; answers when all answered or
  // timed out.
  caf::replies_to<caf::delete_atom, producer_atom,
                  std::string>::with<caf::ok_atom>,
  caf::replies_to<caf::delete_atom, consumer_atom,
                  std::string>::with<caf::ok_atom>,
  caf::reacts_to<consumer_ids_changed>,
  // A broker's GET_CONSUMER_RUNNING_INFO for an admin: what this client's
  // consumer of the group holds now.
  caf::replies_to<get_consumer_running_info_request>::with<
    consumer_running_info>,
  caf::reacts_to<caf::subscribe_atom, caf::actor>,
  caf::reacts_to<caf::tick_atom>,
  // A broker's check-back: forwarded to the listeners of its producer
  // group (dropped, logged, when the process has none).
  caf::reacts_to<check_transaction_state>,
  caf::reacts_to<caf::subscribe_atom, transaction_atom, std::string,
                 transaction_check_listener_actor>,
  // A broker's PUSH_REPLY_MESSAGE_TO_CLIENT: forwarded to the client
  // instance's request holder (docs/request-reply.md).
  caf::reacts_to<push_reply_message>,
  // A round now (a request's topic got its route: the brokers must know
  // the requester before its reply comes back).
  caf::replies_to<heartbeat_atom>::with<caf::ok_atom>>;

/// Listener of the latency-fault table: gets the table whenever a
/// broker's availability or reachability changes.
using fault_listener_actor
  = caf::typed_actor<caf::reacts_to<fault_atom, fault_snapshot>>;

/// Records each broker's latency and errors (RocketMQ
/// LatencyFaultToleranceImpl, 5.x) on the actor clock.
using latency_fault_service_actor = dumpable_actor::extend<
  caf::reacts_to<fault_report>,
  caf::replies_to<fault_atom>::with<fault_snapshot>,
  caf::reacts_to<caf::subscribe_atom, fault_listener_actor>>;

/// A producer (RocketMQ DefaultMQProducer): its send loop. Errors are rmq
/// errors (messages/common/errors.hpp): message_illegal for a message that fails
/// validation (no network call), topic_not_exist for no route, the broker's
/// error for a non-retryable failure, and for a send that failed on every
/// attempt the last error with every broker tried in its detail.
using producer_actor = dumpable_actor::extend<
  // Sync: up to 1 + retries attempts within the send timeout, each on
  // another broker than the last failed one.
  caf::replies_to<send_atom, client_message>::with<client_send_result>,
  // To one queue: no retry on another broker (ordered messages).
  caf::replies_to<send_atom, client_message,
                  message_queue>::with<client_send_result>,
  // A batch of one topic, stored together in one queue.
  caf::replies_to<send_atom,
                  std::vector<client_message>>::with<client_send_result>,
  caf::replies_to<send_atom, std::vector<client_message>,
                  message_queue>::with<client_send_result>,
  // Async: bounded in messages and bytes (system_busy past the bound) and
  // auto-batched with other async sends to the same broker.
  caf::replies_to<async_atom, client_message>::with<client_send_result>,
  // The same, answered one-way to the sender: (async_atom, tag,
  // client_send_result) or (async_atom, tag, error). For callers with many
  // sends in flight (the facade's callback actor): they keep no request
  // pending per send.
  caf::reacts_to<async_atom, uint64_t, client_message>,
  // One attempt, nothing reported.
  caf::reacts_to<oneway_atom, client_message>,
  // The topic's writable queues, sorted (selectors pick from them).
  caf::replies_to<queues_atom, std::string>::with<std::vector<message_queue>>,
  // Ends in-flight sends, unregisters the group, then quits.
  caf::replies_to<shutdown_atom>::with<caf::ok_atom>,
  // Pushed by the client instance's actors.
  caf::reacts_to<route_atom, std::string, topic_route_data>,
  caf::reacts_to<fault_atom, fault_snapshot>,
  caf::reacts_to<peer_lost_atom, std::string>,
  // The send loop's own timers: batch_linger for a broker's async sends
  // ended; attempts past their deadline end (one timer for all of them,
  // not a CAF request timeout per attempt).
  caf::reacts_to<caf::tick_atom, std::string>, caf::reacts_to<caf::tick_atom>,
  // A transaction's half message (sync, with retries): TRAN_MSG=true,
  // PGROUP=the group, the prepared sys flag; a delay level is ignored
  // (RocketMQ sendMessageInTransaction clears it).
  caf::replies_to<send_atom, transaction_atom,
                  client_message>::with<client_send_result>,
  // Request-reply: sends the message as a request and answers its reply,
  // or request_timeout when none came within the timeout; a failed send
  // answers the send's error (docs/request-reply.md).
  caf::replies_to<request_atom, client_message,
                  caf::timespan>::with<received_message>>;

} // namespace rmq
