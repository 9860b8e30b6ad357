// A push consumer (RocketMQ DefaultMQPushConsumerImpl with
// ConsumeMessageConcurrentlyService / ConsumeMessageOrderlyService). One
// actor drives every owned queue: it finds each queue's start offset,
// pulls it with long polling into a process queue (flow control pauses
// the pull), hands batches to its consume workers, sends failed messages
// back to their broker, commits offsets every persist interval and, in
// orderly mode, holds the queues' locks at their masters. See
// docs/consumer.md, section "Push consumer".
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/consumer/consume_worker.hpp"
#include "actors/client/consumer/consumer.hpp"
#include "actors/client/instance/master_cache.hpp"
#include "messages/client/consumer.hpp"
#include "runtime/client/local_offset_store.hpp"
#include "runtime/client/process_queue.hpp"
#include "runtime/common/timer_set.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/subscription_expression.hpp"

namespace rmq {

/// Everything a push consumer actor needs; spawn_push_consumer fills it.
struct push_consumer_options {
  push_consumer_config cfg;
  /// The client instance's handles (directory, route cache, heartbeats).
  std::shared_ptr<client_instance> instance;
  /// Exactly one of them is set.
  concurrent_listener concurrent;
  orderly_listener orderly;
  /// Workers run the user's listener, which may block, and a broadcasting
  /// consumer does file I/O: both detached in a program, attached in
  /// tests (the deterministic coordinator cannot run detached actors).
  bool detached = true;
  /// Registers with the client instance's rebalance service for its
  /// queues; false: the owner sends (assign_atom, queue_assignment) itself
  /// (tests, programs that pick their queues).
  bool rebalance = true;
  /// For the default consume timestamp and sub_version.
  rmq::wall_clock wall_clock;
  /// Bound of one offset, lock, send-back or route request.
  caf::timespan request_timeout = std::chrono::seconds{3};
  /// Shutdown waits this long for in-flight batches.
  caf::timespan shutdown_wait = std::chrono::seconds{10};
};

/// One owned queue.
struct push_queue {
  message_queue mq;
  process_queue pq;
  /// Tells results for an earlier ownership of the same queue apart.
  int64_t generation = 0;
  /// The start offset is known; pulling may begin.
  bool started = false;
  /// A start lookup, lock or pull is in flight.
  bool pulling = false;
  bool locking = false;
  /// Flow control stopped the pull; consumption resumes it.
  bool paused = false;
  /// Orderly: a batch of this queue is at a worker.
  bool consuming = false;
  int64_t next_offset = 0;
  /// The next pull after a back-off, or the orderly consume after a
  /// suspension (actor clock).
  std::optional<caf::actor_clock::time_point> pull_at;
  std::optional<caf::actor_clock::time_point> resume_at;
  /// Orderly: extra reconsume times of messages put back after a suspend.
  std::map<int64_t, int32_t> reconsumed;
  int64_t last_committed = -1;
  /// Tells the answer of the pull in flight from those of pulls given up
  /// (their broker's connection was lost).
  uint64_t pull_seq = 0;
  /// The broker address the pull in flight went to; empty while none.
  std::string pull_addr;
  /// The node of the queue's broker group to pull from next, as the last
  /// answer suggested (RocketMQ PullAPIWrapper pullFromWhichNodeTable).
  int64_t pull_from = 0;
  /// When the pull in flight is given up (pull_timeout; watched by the
  /// consumer's tick, not by a CAF request timeout).
  caf::actor_clock::time_point pull_deadline;
  int64_t pulls = 0;
  int64_t pull_errors = 0;
  int64_t pulled = 0;
  int64_t filtered = 0;
  int64_t paused_times = 0;
};

/// A batch waiting for a worker (concurrent mode).
struct push_job {
  message_queue mq;
  int64_t generation = 0;
  std::vector<received_message> msgs;
  /// Local retries wait until then.
  std::optional<caf::actor_clock::time_point> due;
};

struct push_consumer_state {
  push_consumer_options opts;
  bool orderly = false;
  /// Subscribed topic -> expression (the retry topic: "*").
  std::map<std::string, subscription_expression> subscriptions;
  std::map<message_queue, push_queue> queues;
  /// Orderly: queues dropped while a batch of theirs was at a worker ->
  /// that batch's generation. Their unlock waits for the batch, so that
  /// no other member locks and consumes the queue meanwhile (RocketMQ
  /// takes the process queue's consume lock before it unlocks). A queue
  /// owned again meanwhile does not consume until the batch ends.
  std::map<message_queue, int64_t> unlock_after_batch;
  int64_t generations = 0;
  std::vector<consume_worker_actor> workers;
  std::vector<consume_worker_actor> idle;
  std::deque<push_job> jobs;
  /// Local retries after a failed send-back.
  std::vector<push_job> later;
  int64_t in_flight = 0;
  std::optional<local_offset_store> local_offsets;
  /// Each broker's master as last resolved.
  master_cache masters;
  /// Timers armed for the deadlines of pulls in flight.
  timer_set<caf::actor_clock::time_point> pull_timers;
  caf::actor_clock::time_point next_persist;
  caf::actor_clock::time_point next_lock;
  bool stopping = false;
  /// Committing, unlocking and unregistering after the in-flight wait.
  bool finishing = false;
  caf::actor_clock::time_point shutdown_deadline;
  bool registered = false;
  std::vector<caf::typed_response_promise<caf::ok_atom>> shutdown_waiters;
  // -- counters
  int64_t consumed_ok = 0;
  int64_t consumed_retry = 0;
  int64_t sent_back = 0;
  int64_t send_back_failed = 0;
  /// Records no listener could take, and those of them skipped because
  /// the dead-letter send failed (dead_letter_undecodable).
  int64_t undecodable = 0;
  int64_t undecodable_skipped = 0;
  /// Offsets the broker refused as damaged in its store (skip_damaged).
  int64_t damaged_skipped = 0;
  int64_t local_retries = 0;
  int64_t commits = 0;
  int64_t commit_failures = 0;
  int64_t lock_rounds = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

push_consumer_actor::behavior_type push_consumer_impl(
  push_consumer_actor::stateful_pointer<push_consumer_state> self,
  push_consumer_options opts);

/// Spawns the actor of `opts` (checked: a group, subscriptions that
/// parse, one listener) and its workers; invalid_parameter or
/// subscription_parse_failed otherwise.
caf::expected<push_consumer_actor>
spawn_push_consumer_actor(caf::actor_system& sys, push_consumer_options opts);

} // namespace rmq
