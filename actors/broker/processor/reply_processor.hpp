// The broker's reply processor (RocketMQ ReplyMessageProcessor): takes a
// consumer's reply (SEND_REPLY_MESSAGE_V2), looks up the requester's
// channel by REPLY_TO_CLIENT in the client manager, stores the reply
// through the send processor (storeReplyMessageEnable, the same checks and
// store path as any send) and pushes it to the channel
// (PUSH_REPLY_MESSAGE_TO_CLIENT, one-way). A requester that is not online
// is a system_error naming it, and nothing is stored. No files, no I/O.
// See docs/request-reply.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/duration.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker/client_manager.hpp"
#include "messages/broker/reply.hpp"
#include "messages/broker/send.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

struct reply_processor_options {
  /// RocketMQ storeReplyMessageEnable: replies are stored in
  /// `<cluster>_REPLY_TOPIC` before they are pushed.
  bool store_reply_message_enable = true;
  /// "ip:port" of the broker, the pushed reply's store host.
  std::string store_host = "127.0.0.1:10921";
  /// Largest body when replies are not stored (the send processor checks
  /// stored ones; RocketMQ maxMessageSize).
  size_t max_message_size = 4 * 1024 * 1024;
  /// For PUSH_REPLY_TIME and the push's store timestamp.
  rmq::wall_clock wall_clock;
  /// How long the client manager may take to name a channel.
  caf::timespan table_timeout = std::chrono::seconds{3};
  /// How long the send processor may take. None, as its own store
  /// timeout (actors/broker/processor/send_processor.hpp): it answers every send
  /// itself, and a dead one answers request_receiver_down.
  caf::duration store_timeout = caf::infinite;
};

struct reply_processor_state {
  reply_processor_options options;
  send_processor_actor send;
  client_manager_actor clients;
  // Statistics for the dump.
  int64_t requests = 0;
  int64_t pushed = 0;
  int64_t stored = 0;
  int64_t refused = 0;
  int64_t not_online = 0;
  int64_t store_failures = 0;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

reply_processor_actor::behavior_type reply_processor(
  reply_processor_actor::stateful_pointer<reply_processor_state> self,
  reply_processor_options options, send_processor_actor send,
  client_manager_actor clients);

} // namespace rmq
