// The pull processor (RocketMQ PullMessageProcessor): checks a pull against
// the topic table, reads the queue through the queue service, maps the store's
// status to the client's, commits the offset the pull carries and parks a
// pull that found nothing in the hold service. Keeps no files: it can run
// on the shared scheduler.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/duration.hpp"
#include "caf/expected.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/broker/table/topic_cache.hpp"
#include "messages/broker/client_manager.hpp"
#include "messages/broker/pull.hpp"
#include "messages/broker/topics.hpp"
#include "messages/store/store.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/rate_meter.hpp"
#include "runtime/message/subscription_expression.hpp"

namespace rmq {

/// Broker settings the processor follows (RocketMQ BrokerConfig and
/// MessageStoreConfig names in the comments).
struct pull_processor_config {
  /// maxTransferCountOnMessageInMemory. RocketMQ's is 32, which caps
  /// every pull at 32 whatever the client asks; here the client's
  /// pullBatchSize (a push consumer's: 256) decides, up to 1,024, and the byte cap
  /// bounds the answer (docs/broker.md, "Pulls, long polling and consumer offsets").
  int32_t max_transfer_count = 1024;
  /// maxTransferBytesOnMessageInMemory.
  int32_t max_transfer_bytes = 256 * 1024;
  /// longPollingEnable; without it a parked pull waits shortPollingTimeMills.
  bool long_polling = true;
  int64_t short_polling_ms = 1000;
  /// How long the processor waits for the topic table (a topic not in
  /// its copy).
  caf::timespan request_timeout = std::chrono::seconds{10};
  /// How long it waits for the queue service's reads: by default for ever,
  /// since the queue service answers every read (a dead one answers
  /// request_receiver_down) and a CAF request timeout costs the clock
  /// thread two wake-ups per pull.
  caf::duration read_timeout = caf::infinite;
  /// slaveReadEnable: each answer suggests the node of the group to pull
  /// from next (suggestWhichBrokerId), the group's
  /// whichBrokerWhenConsumeSlowly when the read lay further back than
  /// the store keeps in memory, else its brokerId (docs/replication.md,
  /// "Reading from a slave"). Off: always the master.
  bool slave_read_enable = false;
  /// This broker is a slave: a pull past its queue's end waits for the
  /// copy (no_new_msg at the same offset) instead of moving the
  /// consumer's offset back (RocketMQ offsetCheckInSlave off).
  bool slave = false;
};

/// Returns the client's status for a store status (rocketmq-features.md
/// §2.6): NO_MESSAGE_IN_QUEUE is NO_NEW_MSG only for a pull from offset 0.
pull_status map_get_status(get_status st, int64_t request_offset);

struct pull_processor_state {
  pull_processor_config config;
  int64_t pulls = 0;
  int64_t refused = 0;
  int64_t found = 0;
  int64_t no_new = 0;
  int64_t no_matched = 0;
  int64_t offset_illegal = 0;
  int64_t suspended = 0;
  int64_t commits = 0;
  /// Answers that suggested a slave (slave_read_enable).
  int64_t suggested_slave = 0;
  /// Per group, topic and queue: the first stored offset a pull below it
  /// was told of (note_lost); the messages such pulls found deleted.
  std::map<std::tuple<std::string, std::string, int32_t>, int64_t> lost_noted;
  int64_t lost_messages = 0;
  /// Messages found, in total and per second (getTotal / getFoundTps).
  int64_t found_messages = 0;
  rate_meter get_rate;
  /// Messages found per topic and consumer group (consumerProgress's
  /// Consume TPS).
  std::map<std::pair<std::string, std::string>, rate_meter> group_rates;
  /// The topic table as last announced: known topics need no lookup.
  topic_cache topic_copy;
  caf::actor_clock* clock = nullptr;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Spawned by the broker node. `offsets`, `hold` and `groups` may be
/// invalid handles: then commit offsets are ignored, nothing is parked
/// and suggestions take RocketMQ's group defaults.
pull_processor_actor::behavior_type pull_processor(
  pull_processor_actor::stateful_pointer<pull_processor_state> self,
  pull_processor_config config, topic_config_table_actor topics,
  queue_service_actor queue_service, consumer_offset_table_actor offsets,
  pull_hold_service_actor hold, subscription_group_table_actor groups);

} // namespace rmq
