// The consumer API a program includes (RocketMQ DefaultMQPushConsumer and
// DefaultLitePullConsumer): spawn a consumer actor and drive it through its
// typed handle from actor code, or through these small facades from plain
// code. See docs/consumer.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"
#include "caf/timespan.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "messages/broker/client_manager.hpp"
#include "messages/client/consumer.hpp"
#include "runtime/client/process_queue.hpp"

namespace rmq {

/// One topic and its tag expression ("*", "TagA || TagB").
struct consumer_subscription {
  std::string topic;
  std::string expression = "*";
};

/// Settings both consumer kinds share (RocketMQ's defaults).
struct consumer_config {
  /// RocketMQ consumerGroup.
  std::string group;
  client_config client;
  std::vector<consumer_subscription> subscriptions;
  message_model model = message_model::clustering;
  consume_from_where from_where = consume_from_where::consume_from_last_offset;
  /// yyyyMMddHHmmss for consume_from_timestamp; empty: 30 minutes ago.
  std::string consume_timestamp;
  /// runtime/client/allocate_strategy.hpp name.
  std::string allocate_strategy = "AVG";
  /// Most messages one pull asks for (RocketMQ pullBatchSize; push: 256
  /// here, RocketMQ 32, see docs/consumer.md "Pull size"; lite pull: 10).
  int32_t pull_batch_size = 256;
  /// Broker-side long-poll suspension (push: 15 s; lite pull: 20 s) and
  /// the bound of one pull request (RocketMQ consumerTimeoutMillis...: 30 s).
  caf::timespan suspend_timeout = std::chrono::seconds{15};
  caf::timespan pull_timeout = std::chrono::seconds{30};
  /// Back-off after a failed pull (RocketMQ pullTimeDelayMillsWhenException).
  caf::timespan pull_backoff = std::chrono::seconds{3};
  /// RocketMQ persistConsumerOffsetInterval.
  caf::timespan persist_interval = std::chrono::seconds{5};
  /// RocketMQ rebalance interval.
  caf::timespan rebalance_interval = std::chrono::seconds{20};
  /// Flow control per queue (1,000 messages, 100 MiB, span 2,000).
  process_queue_limits limits;
  /// Broadcasting offsets: the local offsets file's directory (empty:
  /// ~/.rocketmq_offsets).
  std::string offset_dir;
};

/// A concurrent listener: a batch of at most consume_batch_max messages.
/// Runs on a consume worker thread; may block.
using concurrent_listener
  = std::function<consume_status(const std::vector<received_message>&)>;

/// An orderly listener: the messages of one queue, in queue order, one
/// batch at a time per queue.
using orderly_listener
  = std::function<orderly_status(const std::vector<received_message>&)>;

struct push_consumer_config : consumer_config {
  /// Consume workers (RocketMQ consumeThreadMin/Max: 20; fewer here, a
  /// worker is a thread).
  int consume_threads = 4;
  /// RocketMQ consumeMessageBatchMaxSize.
  int32_t consume_batch_max = 1;
  /// RocketMQ maxReconsumeTimes: -1 = 16 for concurrent listeners,
  /// unlimited for orderly ones.
  int32_t max_reconsume_times = -1;
  /// Re-consume locally after a failed send-back (RocketMQ: 5 s).
  caf::timespan local_retry_delay = std::chrono::seconds{5};
  /// Orderly: SUSPEND_CURRENT_QUEUE_A_MOMENT waits this long.
  caf::timespan suspend_current_queue = std::chrono::seconds{1};
  /// Orderly: lock renewal (20 s); a lock older than 30 s counts as lost.
  caf::timespan lock_renew_interval = std::chrono::seconds{20};
};

class push_consumer {
public:
  push_consumer_actor handle() const;

  /// Stops pulling, finishes in-flight batches, commits offsets,
  /// unregisters the group.
  void shutdown();

  struct impl;
  explicit push_consumer(std::shared_ptr<impl> ptr);

private:
  std::shared_ptr<impl> impl_;
};

/// Spawns a push consumer that calls `listener` concurrently.
caf::expected<push_consumer>
spawn_push_consumer(caf::actor_system& sys, const push_consumer_config& cfg,
                    concurrent_listener listener);

/// Spawns a push consumer that calls `listener` in queue order per queue,
/// holding each queue's lock at the broker.
caf::expected<push_consumer>
spawn_push_consumer(caf::actor_system& sys, const push_consumer_config& cfg,
                    orderly_listener listener);

struct lite_pull_consumer_config : consumer_config {
  lite_pull_consumer_config() {
    pull_batch_size = 10;
    suspend_timeout = std::chrono::seconds{20};
  }
  /// RocketMQ autoCommit and autoCommitIntervalMillis (5 s).
  bool auto_commit = true;
  /// RocketMQ pullThresholdForAll: fetched messages kept for poll().
  size_t buffer_max_messages = 10000;
  /// Queues to read in assign mode (no rebalance); empty: subscribe mode
  /// with `subscriptions`.
  std::vector<message_queue> assigned;
};

class lite_pull_consumer {
public:
  lite_pull_consumer_actor handle() const;

  /// Fetched messages; waits up to `timeout` when none are there yet.
  caf::expected<std::vector<received_message>> poll(caf::timespan timeout);

  /// Reads exactly these queues from now on (assign mode).
  caf::error assign(const std::vector<message_queue>& queues);

  /// Reads `queue` from `offset` on; invalid_parameter for a queue not
  /// owned or an offset outside the queue's [min, max] at its broker.
  caf::error seek(const message_queue& queue, int64_t offset);

  /// Commits what poll() returned so far.
  caf::error commit();

  void shutdown();

  struct impl;
  explicit lite_pull_consumer(std::shared_ptr<impl> ptr);

private:
  std::shared_ptr<impl> impl_;
};

caf::expected<lite_pull_consumer>
spawn_lite_pull_consumer(caf::actor_system& sys,
                         const lite_pull_consumer_config& cfg);

} // namespace rmq
