// The producer API a program includes (RocketMQ DefaultMQProducer): spawn
// a producer actor and use it through its typed handle from actor code, or
// through this small blocking facade from plain code. See docs/client.md.
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
#include "messages/client/client.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

struct producer_config {
  /// RocketMQ producerGroup.
  std::string group = "DEFAULT_PRODUCER";
  /// NameServers and the client instance's settings.
  client_config client;
  /// RocketMQ sendMsgTimeout: the whole budget of one send, retries
  /// included.
  caf::timespan send_timeout = std::chrono::seconds{3};
  /// Cap of one attempt while retries remain (RocketMQ
  /// sendMsgMaxTimeoutPerRequest), so one slow broker cannot eat the
  /// whole budget.
  caf::timespan attempt_timeout = std::chrono::seconds{1};
  /// RocketMQ retryTimesWhenSendFailed / retryTimesWhenSendAsyncFailed.
  int retries = 2;
  int async_retries = 2;
  /// RocketMQ retryAnotherBrokerWhenNotStoreOK.
  bool retry_another_broker_when_not_store_ok = false;
  size_t max_message_size = 4 * 1024 * 1024;
  size_t compress_over = 4096;
  int compress_level = 5;
  std::string create_topic_key = "TBW102";
  int32_t default_topic_queue_nums = 4;
  /// Async back-pressure: at most this many messages and bytes in flight.
  size_t max_async_messages = 10000;
  size_t max_async_bytes = 64 * 1024 * 1024;
  /// Auto-batching of async sends to one broker while a request to it is
  /// in flight.
  bool auto_batch = true;
  size_t batch_max_messages = 256;
  size_t batch_max_bytes = 1024 * 1024;
  /// Requests in flight to one broker past which a full auto-batch waits
  /// too (below it, a full batch goes at once; a partial one always waits
  /// for a request to end), so one broker is not a stop-and-wait loop.
  size_t batch_max_in_flight = 4;
  /// Requests in flight to one broker below which an async send goes at
  /// once, alone; from this many on it waits for one to end and goes in
  /// the next batch. 2 lets a second request overlap the first's round
  /// trip: lower latency at light load and more throughput than 1, where a
  /// message waited whenever a request was out (docs/client.md).
  size_t batch_partial_in_flight = 2;
  caf::timespan batch_linger = std::chrono::microseconds{0};
  /// For born timestamps and UNIQ_KEYs. Tests pass a fixed one.
  rmq::wall_clock wall_clock;
  /// Each topic's first round-robin queue index; empty: a random one, as
  /// RocketMQ's ThreadLocalIndex, so producers do not all start on the
  /// same queue. Tests pass one for a known order.
  std::function<uint32_t()> start_index;
};

/// Chooses a queue for an ordered send (RocketMQ MessageQueueSelector).
using queue_selector_fn
  = std::function<size_t(const std::vector<message_queue>& queues,
                         const client_message& msg, const std::string& arg)>;

/// RocketMQ SelectMessageQueueByHash: hash of `arg` modulo the queues.
size_t select_by_hash(const std::vector<message_queue>& queues,
                      const client_message& msg, const std::string& arg);

/// Spawns a producer actor in `sys` on the process's client instance.
caf::expected<producer_actor> spawn_producer_actor(caf::actor_system& sys,
                                                   const producer_config& cfg);

/// Spawns a producer actor on a given client instance (tests build one
/// from stub actors); invalid_parameter for a bad group name.
caf::expected<producer_actor> spawn_producer_actor(caf::actor_system& sys,
                                                   const producer_config& cfg,
                                                   const client_instance& inst);

/// The blocking facade. Copies share one producer; when the last copy
/// goes it shuts the producer down (blocking, as `shutdown`), so do not
/// drop the last copy inside a callback.
class producer {
public:
  using callback = std::function<void(caf::expected<client_send_result>)>;

  producer_actor handle() const;

  /// Sync send: a result or an error, within send_timeout.
  caf::expected<client_send_result> send(const client_message& msg);

  /// Async send: `cb` runs on a scheduler thread (do not block in it).
  /// Past max_async_messages / max_async_bytes it waits up to
  /// send_timeout for room, then calls `cb` with system_busy.
  void send_async(client_message msg, callback cb);

  /// Fire and forget.
  void send_oneway(client_message msg);

  caf::expected<client_send_result>
  send_batch(const std::vector<client_message>& msgs);

  caf::expected<client_send_result> send_to(const client_message& msg,
                                            const message_queue& queue);

  /// Ordered: `selector` picks a queue by `arg`; no retry elsewhere.
  caf::expected<client_send_result>
  send_ordered(const client_message& msg, const queue_selector_fn& selector,
               const std::string& arg);

  /// Request-reply: sends `msg` as a request and waits for the reply a
  /// consumer sends with create_reply_message (runtime/message/reply_message.hpp):
  /// the reply, request_timeout when none came within `timeout`, or the
  /// send's error (docs/request-reply.md).
  caf::expected<received_message> request(const client_message& msg,
                                          caf::timespan timeout);

  using reply_callback = std::function<void(caf::expected<received_message>)>;

  /// Async request: `cb` runs once, on a scheduler thread (do not block
  /// in it), with what `request` would return.
  void request_async(client_message msg, caf::timespan timeout,
                     reply_callback cb);

  /// Waits for async sends, unregisters the group, stops the actor.
  void shutdown();

  struct impl;

  explicit producer(std::shared_ptr<impl> ptr);

private:
  std::shared_ptr<impl> impl_;
};

/// Spawns a producer and returns its facade.
caf::expected<producer> spawn_producer(caf::actor_system& sys,
                                       const producer_config& cfg);

/// Spawns a producer on a given client instance and returns its facade.
caf::expected<producer> spawn_producer(caf::actor_system& sys,
                                       const producer_config& cfg,
                                       const client_instance& inst);

} // namespace rmq
