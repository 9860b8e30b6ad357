// The producer's send loop (RocketMQ DefaultMQProducerImpl.sendDefaultImpl
// with MQFaultStrategy): one actor per producer. It keeps the publish
// queues of the topics it sends to (from the client instance's route
// cache, pushed to it on change; TBW102's brokers for a topic without a
// route), a copy of the latency-fault table (pushed by the fault table)
// and one broker handle per address (forgotten when the peer directory
// says the peer is lost).
//
// A send is validated first (no network call when it fails), gets its
// UNIQ_KEYs, then takes up to 1 + retries attempts within send_timeout,
// each capped at attempt_timeout while retries remain, each on a queue
// chosen round-robin that avoids the last failed broker (and, with fault
// tolerance on, brokers the fault table keeps out). Every outcome is
// reported to the fault table. Async sends are bounded in messages and
// bytes and auto-batched per broker: while a request to a broker is in
// flight, async messages for it wait and then travel as one batch request;
// each caller still gets its own result. See docs/client.md "Send loop".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/error.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/producer/producer.hpp"
#include "messages/client/client.hpp"
#include "runtime/client/client_message_codec.hpp"
#include "runtime/client/latency_fault_table.hpp"
#include "runtime/common/timer_set.hpp"
#include "runtime/message/message_id.hpp"

namespace rmq {

/// The queues of one topic as the send loop knows them.
struct send_loop_topic {
  topic_route_data route;
  std::vector<message_queue> queues;
  /// The queues come from the default topic's route (no route of its own
  /// yet); such an entry is fetched again after poll_namesrv_interval.
  bool from_default = false;
  caf::actor_clock::time_point fetched_at;
  /// Round-robin position of select_queue.
  uint32_t index = 0;
};

/// Where an async send's answer goes: the caller's response promise, or
/// for a tagged send (async_atom, tag, message) a one-way (async_atom, tag,
/// result or error) back to the caller. A tagged caller keeps no request
/// pending: CAF 0.17 keeps an actor's pending requests in a flat map that
/// each answer scans and shifts, so an actor with 1,024 async sends in
/// flight spent about a tenth of its time there.
struct async_reply {
  caf::typed_response_promise<client_send_result> rp;
  caf::actor to; // tagged: the caller
  uint64_t tag = 0;

  void deliver(client_send_result res);
  void deliver(const caf::error& err);
};

/// One send on its way: one message, or a batch (a batch request or the
/// async messages auto-batched into one).
struct send_loop_op {
  enum class kind : uint8_t { sync, oneway, async };
  kind mode = kind::sync;
  std::string topic;
  /// The request without its queue (filled in per attempt).
  send_message_request req;
  /// An async message not yet sent (it may still join an auto-batch).
  std::vector<client_message> msgs;
  /// Per-message UNIQ_KEYs and sizes (one entry for a single message).
  std::vector<std::string> uniq_keys;
  std::vector<size_t> sizes;
  /// The queue given by the caller: one attempt on it, no retry.
  std::optional<message_queue> fixed_queue;
  /// The queue an auto-batch was formed for: its first attempt goes there.
  std::optional<message_queue> first_queue;
  caf::actor_clock::time_point started;
  caf::actor_clock::time_point deadline;
  int attempts_total = 1;
  int attempts = 0;
  std::vector<std::string> brokers_sent;
  std::string last_broker;
  caf::error last_error;
  /// A stored send whose status was not SEND_OK, retried elsewhere
  /// (retry_another_broker_when_not_store_ok): the answer if the retries
  /// fail, as in RocketMQ.
  std::optional<std::pair<send_result, message_queue>> not_ok;
  /// The caller of a sync send or batch.
  caf::typed_response_promise<client_send_result> rp;
  /// The callers of an async send, one per message (an auto-batch has
  /// several); each gets entry i of the batch result.
  std::vector<async_reply> async_rps;
  /// Whether the request is an auto-batch of async messages.
  bool auto_batch = false;
  /// An async message that may still join an auto-batch has no request of
  /// its own yet (most never need one); made at its first attempt, with
  /// the born time of its acceptance.
  bool req_deferred = false;
  int64_t born_ms = 0;
};

/// An async message waiting for its broker's in-flight request to end.
struct queued_async {
  client_message msg;
  std::string uniq_key;
  size_t size = 0;
  message_queue queue;
  caf::actor_clock::time_point deadline;
  async_reply rp;
};

/// An attempt waiting for its broker's answer. Its deadline is watched by
/// the send loop's one attempt timer, not by a CAF request timeout (which
/// costs the clock thread two wake-ups per request).
struct pending_attempt {
  uint64_t op = 0;
  std::string broker;
  std::string addr;
  caf::actor_clock::time_point begin;
  caf::actor_clock::time_point deadline;
};

struct send_loop_state {
  producer_config cfg;
  client_instance inst;
  message_codec_options codec;
  std::optional<uniq_key_generator> keys;
  latency_fault_table faults;
  /// Random start indexes of the topics' round robin.
  std::minstd_rand rng;
  std::map<std::string, send_loop_topic> topics;
  /// What waits for a topic's route (sends, queue lists), by topic; run
  /// with the error that keeps the route unknown, or none.
  std::map<std::string, std::vector<std::function<void(const caf::error&)>>>
    waiting_for_route;
  /// Broker handles by address.
  std::map<std::string, client_broker_actor> brokers;
  std::map<uint64_t, send_loop_op> ops;
  uint64_t next_op = 0;
  /// Attempts waiting for an answer, by token (a late answer finds none).
  std::map<uint64_t, pending_attempt> pending;
  uint64_t next_attempt = 0;
  /// When the attempt timers on their way fire.
  timer_set<caf::actor_clock::time_point> attempt_timers;
  /// Requests in flight per broker name (auto-batching waits on them).
  std::map<std::string, size_t> in_flight_by_broker;
  /// Async messages waiting, per broker name, then topic.
  std::map<std::string, std::map<std::string, std::vector<queued_async>>>
    queued;
  /// Brokers whose async sends wait for batch_linger to end (a timer is
  /// on its way).
  std::set<std::string> lingering;
  /// Async back-pressure: messages and bytes accepted and not answered.
  size_t async_messages = 0;
  size_t async_bytes = 0;
  bool stopping = false;
  std::vector<caf::typed_response_promise<caf::ok_atom>> stop_waiters;
  // Counters for the dump.
  uint64_t sent = 0;
  uint64_t failed = 0;
  uint64_t retried = 0;
  uint64_t batches = 0;
  uint64_t batched_messages = 0;
  uint64_t rejected_busy = 0;
  /// Requests sent (request-reply).
  uint64_t requests = 0;

  /// Returns how many async messages wait in the per-broker queues.
  size_t queued_count() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Spawned by spawn_producer_actor; tests spawn it on a client instance
/// made of stub actors.
producer_actor::behavior_type
send_loop(producer_actor::stateful_pointer<send_loop_state> self,
          producer_config cfg, client_instance inst);

} // namespace rmq
