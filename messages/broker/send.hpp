// The broker's send path (RocketMQ SendMessageProcessor): what a producer
// sends (SendMessageRequestHeader + body), what it gets back
// (SendMessageResponseHeader / SendResult) and the processor's typed
// interface. Implemented in actors/broker/processor/send_processor.*.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/topics.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"

namespace rmq {

/// Sets the broker's own permission (wipeWritePerm / addWritePerm, or a
/// brokerPermission config update); answers the previous one.
using broker_perm_atom = caf::atom_constant<caf::atom("bperm")>;

/// One send (SEND_MESSAGE_V2) or, with `batch`, many messages of one topic
/// in one body (SEND_BATCH_MESSAGE; `body` is runtime/message/message_batch.hpp's
/// encoding and `flag` / `properties` apply to the batch as a whole).
struct send_message_request {
  std::string producer_group;
  std::string topic;
  /// The topic a new topic inherits from (auto-create).
  std::string default_topic = "TBW102";
  int32_t default_queue_nums = 4;
  /// Below 0: the broker picks a random writable queue.
  int32_t queue_id = -1;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  uint32_t born_ip = 0; // IPv4, host byte order
  uint32_t born_port = 0;
  int32_t flag = 0;
  /// RocketMQ's encoded form `k\x01v\x02...`.
  std::string properties;
  int32_t reconsume_times = 0;
  int32_t max_reconsume_times = 16;
  bool batch = false;
  std::string body;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, send_message_request& x) {
  return f(caf::meta::type_name("rmq.send_message_request"), x.producer_group,
           x.topic, x.default_topic, x.default_queue_nums, x.queue_id,
           x.sys_flag, x.born_timestamp, x.born_ip, x.born_port, x.flag,
           x.properties, x.reconsume_times, x.max_reconsume_times, x.batch,
           x.body);
}

RMQ_DECLARE_MESSAGE(send_message_request);

/// How a stored send ended (RocketMQ SendStatus). Anything else is an
/// error, never a send_result.
enum class send_status : uint8_t {
  send_ok = 0,
  /// Stored, but not on disk within syncFlushTimeout (sync flush).
  flush_disk_timeout,
  /// Stored, but the slave did not confirm in time (sync replication).
  flush_slave_timeout,
  /// Stored, but no slave to replicate to (sync replication).
  slave_not_available,
};

/// Returns "SEND_OK", "FLUSH_DISK_TIMEOUT", ... as RocketMQ spells them.
std::string to_string(send_status x);

/// One stored message of a send, as a client reports it (`entries_of`).
struct send_entry {
  /// The producer's UNIQ_KEY (the broker makes one if it was missing).
  std::string msg_id;
  /// Store host + commit-log offset (runtime/message/message_id.hpp).
  std::string offset_msg_id;
  int64_t queue_offset = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, send_entry& x) {
  return f(caf::meta::type_name("rmq.send_entry"), x.msg_id, x.offset_msg_id,
           x.queue_offset);
}

RMQ_DECLARE_MESSAGE(send_entry);

/// The answer to a send. For a batch `msg_id` and `offset_msg_id` join the
/// messages' ids with commas and `queue_offset` is the first message's, as
/// RocketMQ's batch SendResult does. The ids travel only joined: a batch's
/// answer is two strings and one array, not two strings per message
/// (docs/benchmarks.md, "A batch's answer").
struct send_result {
  uint8_t status = 0; // a send_status
  std::string msg_id;
  std::string offset_msg_id;
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  /// Each message's queue offset, in the order sent.
  std::vector<int64_t> queue_offsets;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, send_result& x) {
  return f(caf::meta::type_name("rmq.send_result"), x.status, x.msg_id,
           x.offset_msg_id, x.queue_id, x.queue_offset, x.queue_offsets);
}

RMQ_DECLARE_MESSAGE(send_result);

/// One entry per message of `res`: its ids split from the joined ones and
/// its queue offset.
std::vector<send_entry> entries_of(const send_result& res);

/// Interface of the send processor.
using send_processor_actor = dumpable_actor::extend<
  // Checks, stores and answers a send; errors carry RocketMQ's codes
  // (message_illegal, no_permission, topic_not_exist, invalid_parameter,
  // system_busy, ...).
  caf::replies_to<send_message_request>::with<send_result>,
  // Sets the broker permission; answers the previous one.
  caf::replies_to<broker_perm_atom, int32_t>::with<int32_t>,
  // The topic table's announcement to its watchers (actors/broker/
  // topic_cache.hpp).
  caf::reacts_to<caf::put_atom, topic_config_set>>;

} // namespace rmq
