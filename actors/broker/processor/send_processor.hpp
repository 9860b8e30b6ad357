// The broker's send processor (RocketMQ SendMessageProcessor): checks a
// send (broker and topic write permission, topic name, forbidden system
// topics, body, properties, delay level, queue id), looks the topic up in
// the topic config table (which may auto-create it), picks a queue, stamps
// the CLUSTER property and a missing UNIQ_KEY, appends through the
// commit-log actor and maps the store's answer to a send status. It holds
// no files and does no I/O, so the node may spawn it on the shared
// scheduler.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_clock.hpp"
#include "caf/duration.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/broker/table/topic_cache.hpp"
#include "actors/common/network_actor.hpp"
#include "messages/broker/send.hpp"
#include "messages/broker/topics.hpp"
#include "messages/namesrv/route.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/rate_meter.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/send_checks.hpp"
#include "runtime/message/timer_message.hpp"

namespace rmq {

struct send_processor_options {
  /// Stamped into every stored message as the CLUSTER property
  /// (RocketMQ brokerClusterName).
  std::string cluster_name = "DefaultCluster";
  /// Shown in refusals and dumps (RocketMQ brokerName).
  std::string broker_name = "broker-a";
  /// The broker's own permission (RocketMQ brokerPermission); without
  /// perm::write every send is refused.
  int32_t broker_permission = perm::read_write;
  /// A slave (broker id > 0) stores only what replication brings: every
  /// send is service_not_available, as RocketMQ's store refuses puts in
  /// slave mode.
  bool slave = false;
  /// The store host the store writes into records (must equal the store
  /// config's store_ip / store_port): the offsetMsgId is made from it.
  uint32_t store_ip = 0x7F000001;
  uint32_t store_port = 10921;
  /// Largest body, and largest batch body (RocketMQ maxMessageSize).
  size_t max_message_size = default_max_message_size;
  /// Highest delay level (RocketMQ messageDelayLevel's length).
  int32_t max_delay_level = default_max_delay_level;
  /// Seeds the random pick of a queue for queue id < 0; 0 seeds from
  /// std::random_device.
  uint64_t seed = 0;
  /// Fields of the UNIQ_KEYs the broker makes for messages without one.
  uint16_t pid = 0;
  int32_t id_hash = 0;
  /// For those UNIQ_KEYs (the id encodes the time).
  rmq::wall_clock wall_clock;
  /// How long the topic config table may take (asked only for topics
  /// its announcements did not name yet).
  caf::timespan table_timeout = std::chrono::seconds{3};
  /// How long the commit log may take. None by default: the writer answers
  /// every put itself (at once, or flush_disk_timeout after
  /// syncFlushTimeout under sync flush) and a dead writer answers
  /// request_receiver_down, while each CAF timeout costs two wake-ups of
  /// CAF's clock thread per send (docs/benchmarks.md, "Broker"). A stuck
  /// disk leaves the producer to its own send timeout.
  caf::duration store_timeout = caf::infinite;
  /// Refuse transactional (TRAN_MSG) sends with no_permission (RocketMQ
  /// rejectTransactionMessage).
  bool reject_transaction_message = false;
  /// timerMaxDelaySec and timerPrecisionMs (docs/timer.md).
  timer_settings timer;
};

struct send_processor_state {
  send_processor_options options;
  topic_config_table_actor topics;
  commit_log_writer_actor commit_log;
  std::mt19937_64 rng;
  uniq_key_generator ids{0, 0, 0};

  // Statistics for the dump.
  int64_t requests = 0;
  int64_t batches = 0;
  int64_t stored_messages = 0;
  int64_t refused = 0; // checks, topic lookups, permissions
  int64_t store_failures = 0;
  int64_t busy = 0;
  int64_t flush_timeouts = 0;
  int64_t made_ids = 0;
  /// Stored messages per second (putTps in brokerStatus).
  rate_meter put_rate;
  /// The topic table as last announced: known topics need no lookup.
  topic_cache topic_copy;
  /// The actor's clock, for the rates in the dump.
  caf::actor_clock* clock = nullptr;
  /// Messages stored into SCHEDULE_TOPIC_XXXX for their DELAY level.
  int64_t scheduled = 0;
  /// Half messages stored into RMQ_SYS_TRANS_HALF_TOPIC.
  int64_t half_messages = 0;
  /// Messages stored into the timer topic for a deliver time or delay.
  int64_t timed = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Maps an error of the store or the topic table to what a sender sees
/// (RocketMQ handlePutMessageResult): message_illegal and
/// properties_size_exceeded → message_illegal; service_not_available,
/// disk_full and not_ready → service_not_available; system_busy and
/// queue_full → system_busy; topic_not_exist, no_permission and
/// invalid_parameter unchanged; anything else (CAF's timeouts included)
/// → system_error. The detail text is kept.
caf::error to_send_error(const caf::error& err);

send_processor_actor::behavior_type
send_processor(network_pointer<send_processor_actor, send_processor_state> self,
               send_processor_options options, topic_config_table_actor topics,
               commit_log_writer_actor commit_log);

} // namespace rmq
