// A lite pull consumer (RocketMQ DefaultLitePullConsumer): one actor
// (lite_pull_consumer_main; the facade class has the plain name) drives
// every queue it owns. Subscribe mode registers the group (heartbeats) and
// the consumer (rebalance service) and reads what the rebalance assigns;
// assign mode reads the program's queues. Each owned queue has at most one
// pull in flight (long polling at the broker); found messages, re-checked
// against the tag expression, wait in a bounded buffer for poll(). See
// docs/consumer.md, "Rebalance service and lite pull consumer".
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

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/consumer/consumer.hpp"
#include "actors/client/instance/client_instance.hpp"
#include "actors/client/instance/master_cache.hpp"
#include "messages/client/consumer.hpp"
#include "runtime/client/local_offset_store.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/subscription_expression.hpp"

namespace rmq {

/// What a lite pull consumer actor needs.
struct lite_pull_consumer_options {
  lite_pull_consumer_config cfg;
  /// The client instance it shares (held while the consumer runs).
  std::shared_ptr<client_instance> instance;
  /// For the default consume timestamp and subscription versions.
  rmq::wall_clock wall_clock;
};

/// One owned queue.
struct lite_pull_queue {
  message_queue mq;
  /// Changes when the queue is (re)started or seeks: answers of older
  /// pulls are ignored.
  uint64_t generation = 0;
  /// The next pull's offset; -1 while the start offset is looked up.
  int64_t next_pull = -1;
  /// Next to poll: the offset a commit writes (-1: none yet).
  int64_t consumed = -1;
  /// The offset last committed (-1: none).
  int64_t committed = -1;
  /// Messages and body bytes of this queue waiting in the buffer.
  int64_t buffered = 0;
  int64_t buffered_bytes = 0;
  bool in_flight = false;
  /// Tells the answer of the pull in flight from those of pulls given up
  /// (their broker's connection was lost).
  uint64_t pull_seq = 0;
  /// The broker address the pull in flight went to; empty while none.
  std::string pull_addr;
  /// The node to pull from next, as the last answer suggested (RocketMQ
  /// PullAPIWrapper pullFromWhichNodeTable).
  int64_t pull_from = 0;
  bool starting = false;
  /// Dropped by a rebalance: committing its offset, then gone.
  bool dropping = false;
  /// Waiting for the back-off after a failure, until `retry_at`.
  bool backing_off = false;
  caf::actor_clock::time_point retry_at;
  int64_t pulls = 0;
  int64_t found = 0;
  int64_t filtered = 0;
  /// Records no program could decode, skipped.
  int64_t undecodable = 0;
  int64_t failures = 0;
  std::string last_error;
};

/// One pull's messages as poll() hands them out (RocketMQ ConsumeRequest).
struct lite_pull_batch {
  message_queue mq;
  uint64_t generation = 0;
  std::vector<received_message> messages;
};

struct lite_pull_poll {
  caf::typed_response_promise<std::vector<received_message>> rp;
  caf::actor_clock::time_point deadline;
};

struct lite_pull_consumer_state {
  lite_pull_consumer_options opts;
  /// Assign mode: the program's queues; subscribe mode: the rebalance's.
  bool subscribe_mode = true;
  /// Parsed expressions by topic ("*" for topics without one).
  std::map<std::string, subscription_expression> expressions;
  std::map<message_queue, lite_pull_queue> queues;
  /// Each broker's master as last resolved (forgotten when its connection
  /// is lost or a pull to it fails).
  master_cache masters;
  std::deque<lite_pull_batch> buffer;
  int64_t buffered = 0;
  std::vector<lite_pull_poll> polls;
  /// Broadcasting: the local offsets file.
  std::optional<local_offset_store> local_offsets;
  caf::actor_clock::time_point next_commit;
  uint64_t next_generation = 1;
  bool registered = false;
  bool shutting_down = false;
  int64_t commits = 0;
  int64_t commit_failures = 0;
  int64_t flow_control_pauses = 0;
  int64_t assignments = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

lite_pull_consumer_actor::behavior_type lite_pull_consumer_main(
  lite_pull_consumer_actor::stateful_pointer<lite_pull_consumer_state> self,
  lite_pull_consumer_options opts);

} // namespace rmq
