// The consumer side (RocketMQ DefaultMQPushConsumer / LitePullConsumer):
// what a consumer's listener gets, and the typed interfaces of the
// consumer's actors (actors/client/): the rebalance service of a client
// instance, push consumers, lite pull consumers and their consume workers.
// The plain logic they use is in runtime/ (allocate_strategy,
// process_queue, received_message, ...).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/client_manager.hpp"
#include "messages/client/client.hpp"
#include "messages/client/received_message.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"

namespace rmq {

// -- atoms --------------------------------------------------------------------

/// The queues of a topic a consumer owns (rebalance result, or assigned by
/// the program).
using assign_atom = caf::atom_constant<caf::atom("assign")>;

/// Rebalances now instead of at the next round.
using rebalance_atom = caf::atom_constant<caf::atom("rebalance")>;

/// Takes the messages a lite pull consumer has fetched.
using poll_atom = caf::atom_constant<caf::atom("poll")>;

/// Moves a queue's next pull to an offset.
using seek_atom = caf::atom_constant<caf::atom("seek")>;

/// Commits consumed offsets to the broker (or the local offsets file).
using commit_atom = caf::atom_constant<caf::atom("commit")>;

/// Hands a batch to a consume worker.
using consume_atom = caf::atom_constant<caf::atom("consume")>;

// -- listener results -----------------------------------------------------------

/// What a concurrent listener answers (RocketMQ ConsumeConcurrentlyStatus).
enum class consume_status : uint8_t {
  consume_success = 0,
  /// Sent back to the broker: redelivered after the retry level's delay.
  reconsume_later = 1,
};

/// What an orderly listener answers (RocketMQ ConsumeOrderlyStatus).
enum class orderly_status : uint8_t {
  success = 0,
  /// The same messages again after suspendCurrentQueueTimeMillis (1 s).
  suspend_current_queue_a_moment = 1,
};

// -- rebalance ------------------------------------------------------------------

/// A consumer as the rebalance service knows it.
struct rebalance_subscription {
  std::string group;
  message_model model = message_model::clustering;
  /// The subscribed topics; clustering consumers also get their group's
  /// retry topic here.
  std::vector<std::string> topics;
  /// runtime/client/allocate_strategy.hpp names: "AVG", "AVG_BY_CIRCLE",
  /// "CONSISTENT_HASH".
  std::string strategy = "AVG";
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, rebalance_subscription& x) {
  return f(caf::meta::type_name("rmq.rebalance_subscription"), x.group, x.model,
           x.topics, x.strategy);
}

RMQ_DECLARE_MESSAGE(rebalance_subscription);

/// The queues of one topic a consumer owns now, sorted.
struct queue_assignment {
  std::string topic;
  std::vector<message_queue> queues;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_assignment& x) {
  return f(caf::meta::type_name("rmq.queue_assignment"), x.topic, x.queues);
}

RMQ_DECLARE_MESSAGE(queue_assignment);

/// What the rebalance service tells a consumer after each round: every
/// subscribed topic's owned queues, also when unchanged (the consumer
/// compares).
using rebalance_target_actor
  = caf::typed_actor<caf::reacts_to<assign_atom, queue_assignment>>;

/// One per client instance (RocketMQ RebalanceService + RebalanceImpl):
/// every rebalance interval (20 s), when a consumer registers, and when a
/// broker says a group changed (consumer_ids_changed, forwarded by the
/// heartbeat sender), it reads each topic's readable queues (route cache)
/// and the group's members (GET_CONSUMER_LIST_BY_GROUP at one broker),
/// sorts both and allocates with the consumer's strategy; broadcasting
/// consumers get every queue.
using rebalance_service_actor = dumpable_actor::extend<
  caf::replies_to<caf::put_atom, rebalance_subscription,
                  rebalance_target_actor>::with<caf::ok_atom>,
  caf::reacts_to<caf::delete_atom, rebalance_target_actor>,
  caf::reacts_to<rebalance_atom>, caf::reacts_to<consumer_ids_changed>,
  caf::reacts_to<caf::tick_atom>>;

// -- consumers --------------------------------------------------------------------

/// A push consumer (RocketMQ DefaultMQPushConsumer): pulls its queues with
/// long polling, hands batches to its consume workers, commits offsets.
using push_consumer_actor = dumpable_actor::extend<
  caf::reacts_to<assign_atom, queue_assignment>,
  // Stops pulling, waits for (or hands back) in-flight batches, commits
  // offsets, unregisters the group, quits.
  caf::replies_to<shutdown_atom>::with<caf::ok_atom>,
  caf::reacts_to<peer_lost_atom, std::string>, caf::reacts_to<caf::tick_atom>>;

/// A lite pull consumer (RocketMQ DefaultLitePullConsumer).
using lite_pull_consumer_actor = dumpable_actor::extend<
  // From the rebalance service (subscribe mode).
  caf::reacts_to<assign_atom, queue_assignment>,
  // The program's own queues (assign mode).
  caf::replies_to<assign_atom, std::vector<message_queue>>::with<caf::ok_atom>,
  // Fetched messages, waiting up to the timeout when none are there yet.
  caf::replies_to<poll_atom,
                  caf::timespan>::with<std::vector<received_message>>,
  caf::replies_to<seek_atom, message_queue, int64_t>::with<caf::ok_atom>,
  caf::replies_to<commit_atom>::with<caf::ok_atom>,
  caf::replies_to<shutdown_atom>::with<caf::ok_atom>,
  caf::reacts_to<peer_lost_atom, std::string>, caf::reacts_to<caf::tick_atom>>;

// -- consume workers --------------------------------------------------------------

/// What a consume worker's listener answered for one job: the listener
/// ran once per slice of at most consume_batch_max messages.
struct consume_result {
  /// A consume_status (concurrent) or orderly_status (orderly) value: 1
  /// (retry) when the listener asked a retry for (or threw on) any slice.
  uint8_t status = 0;
  /// The last exception's text when the listener threw, else empty.
  std::string error;
  /// The messages of the slices to retry, handed back so that the
  /// consumer keeps no copy of them while the listener runs; empty on
  /// success (the worker frees them).
  std::vector<received_message> batch;
  /// Listener calls for the job, and how many of them asked a retry.
  int32_t calls = 0;
  int32_t retried_calls = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consume_result& x) {
  return f(caf::meta::type_name("rmq.consume_result"), x.status, x.error,
           x.batch, x.calls, x.retried_calls);
}

RMQ_DECLARE_MESSAGE(consume_result);

/// A push consumer's consume worker: runs the user's listener on one batch
/// at a time (RocketMQ's consumeExecutor thread); a throwing listener is a
/// retry, never the end of the worker.
using consume_worker_actor = dumpable_actor::extend<caf::replies_to<
  consume_atom, std::vector<received_message>>::with<consume_result>>;

} // namespace rmq
