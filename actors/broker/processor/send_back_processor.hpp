// The broker's send-back processor (RocketMQ CONSUMER_SEND_MSG_BACK,
// AbstractSendMessageProcessor#consumerSendMsgBack): reads the original
// record by its commit-log offset, creates the group's retry topic
// (`%RETRY%<group>`) through the topic config table and stores a copy with
// reconsume times + 1, either into the retry topic with a DELAY level or,
// after max reconsume times (or for a delay level below 0), into the
// group's dead-letter topic (`%DLQ%<group>`). It holds no files and does
// no I/O, so the node may spawn it on the shared scheduler.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/send_back.hpp"
#include "messages/broker/topics.hpp"
#include "messages/store/store_actors.hpp"

namespace rmq {

struct send_back_processor_options {
  /// Attempts before the dead-letter topic when a request says -1
  /// (RocketMQ SubscriptionGroupConfig retryMaxTimes).
  int32_t default_max_reconsume_times = 16;
  /// Queues of a new retry topic (RocketMQ retryQueueNums).
  int32_t retry_queue_nums = 1;
  /// Highest delay level (the messageDelayLevel table's size); a retry
  /// copy with a higher one waits that level's delay.
  int32_t max_delay_level = 18;
  /// The store host of the records (the store config's store_ip /
  /// store_port): a first send-back's ORIGIN_MESSAGE_ID is the
  /// original's offsetMsgId made from it.
  uint32_t store_ip = 0x7F000001;
  uint32_t store_port = 10921;
  /// Seeds the random pick of a retry queue; 0 seeds from
  /// std::random_device.
  uint64_t seed = 0;
  /// How long the topic table, the queue service and the commit log may take.
  caf::timespan table_timeout = std::chrono::seconds{3};
  caf::timespan store_timeout = std::chrono::seconds{10};
};

struct send_back_processor_state {
  send_back_processor_options options;
  topic_config_table_actor topics;
  queue_service_actor queue_service;
  commit_log_writer_actor commit_log;
  std::mt19937_64 rng;

  // Statistics for the dump.
  int64_t requests = 0;
  int64_t retried = 0;
  int64_t dead = 0;
  int64_t failed = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Spawns nothing; reads originals through `queue service` ((get_atom,
/// offset) → raw record) and appends through `commit_log`.
send_back_processor_actor::behavior_type send_back_processor(
  send_back_processor_actor::stateful_pointer<send_back_processor_state> self,
  send_back_processor_options options, topic_config_table_actor topics,
  queue_service_actor queue_service, commit_log_writer_actor commit_log);

} // namespace rmq
