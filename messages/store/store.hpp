// Messages of the broker's message store actors: what a sender appends, what
// the store answers, and the read requests (RocketMQ MessageExtBrokerInner,
// PutMessageResult, GetMessageResult, QueryMessageResult).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/error.hpp"
#include "caf/meta/type_name.hpp"

namespace rmq {

// -- atoms ----------------------------------------------------------------------

/// Asks the flush actor to make the commit log durable up to an offset.
using flush_atom = caf::atom_constant<caf::atom("flush")>;

/// Tells the queue service that the commit log has new records up to an offset.
using dispatch_atom = caf::atom_constant<caf::atom("dispatch")>;

/// Asks the queue service to flush consume queues and index, then checkpoint.
using checkpoint_atom = caf::atom_constant<caf::atom("checkpnt")>;

/// Asks the queue service to rebuild the consume queues a read found damaged.
using repair_atom = caf::atom_constant<caf::atom("repair")>;

/// The queue service's note to its listeners: the queues now reach this
/// commit-log offset (new messages may have arrived).
using arrival_atom = caf::atom_constant<caf::atom("arrival")>;

// -- message types ----------------------------------------------------------------

/// One message to append (RocketMQ MessageExtBrokerInner). `properties` is
/// RocketMQ's encoded form `k\x01v\x02...` (see
/// runtime/message/message_record.hpp).
struct store_message {
  std::string topic;
  int32_t queue_id = 0;
  int32_t flag = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  uint32_t born_ip = 0; // IPv4, host byte order
  uint32_t born_port = 0;
  int32_t reconsume_times = 0;
  int64_t prepared_transaction_offset = 0;
  std::string body;
  std::string properties;
  /// The CRC-32 of `body` when the sender has computed and checked it (a
  /// batch entry carries one), else -1: the store computes it. A local
  /// hint, neither serialized nor compared: whoever changes `body` resets
  /// it.
  int64_t body_crc = -1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, store_message& x) {
  return f(caf::meta::type_name("rmq.store_message"), x.topic, x.queue_id,
           x.flag, x.sys_flag, x.born_timestamp, x.born_ip, x.born_port,
           x.reconsume_times, x.prepared_transaction_offset, x.body,
           x.properties);
}

bool operator==(const store_message& x, const store_message& y);
void to_json(nlohmann::json& out, const store_message& x);

/// Result of one appended message (RocketMQ PutMessageResult +
/// AppendMessageResult). A set `error` means: not stored, or not durable
/// under sync flush; never report such a message as sent.
struct put_result {
  caf::error error;
  int64_t queue_offset = -1;
  int64_t phys_offset = -1;
  int32_t size = 0;
  int64_t store_timestamp = 0;
  /// The message carried a unique id stored within the dedup window; the
  /// fields describe the original copy.
  bool duplicate = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, put_result& x) {
  return f(caf::meta::type_name("rmq.put_result"), x.error, x.queue_offset,
           x.phys_offset, x.size, x.store_timestamp, x.duplicate);
}

/// Whether the record is in the log: no error, or only a flush or slave
/// timeout after the append (stored but not yet durable), as a re-put by
/// the schedule, timer and transaction services counts it.
bool is_stored(const put_result& r);

bool operator==(const put_result& x, const put_result& y);
void to_json(nlohmann::json& out, const put_result& x);

/// Status of a read (RocketMQ GetMessageStatus).
enum class get_status : uint8_t {
  found = 0,
  no_matched_message,
  offset_found_null,
  offset_overflow_one,
  offset_overflow_badly,
  offset_too_small,
  no_message_in_queue,
};

std::string to_string(get_status x);

/// Reads up to `max_count` records / `max_bytes` of a queue from `offset`;
/// an empty `tag_codes` matches every tag.
struct get_message_request {
  std::string topic;
  int32_t queue_id = 0;
  int64_t offset = 0;
  int32_t max_count = 32;
  int32_t max_bytes = 256 * 1024;
  std::vector<int64_t> tag_codes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_message_request& x) {
  return f(caf::meta::type_name("rmq.get_message_request"), x.topic, x.queue_id,
           x.offset, x.max_count, x.max_bytes, x.tag_codes);
}

bool operator==(const get_message_request& x, const get_message_request& y);
void to_json(nlohmann::json& out, const get_message_request& x);

/// Raw stored records, concatenated as they are on disk, ready to be sent.
struct get_message_result {
  uint8_t status = 0; // a get_status
  int64_t next_begin_offset = 0;
  int64_t min_offset = 0;
  int64_t max_offset = 0;
  std::string buffer;
  std::vector<int64_t> phys_offsets; // one per record in `buffer`
  std::vector<int64_t> queue_offsets;
  /// The last record read lies further back from the log's end than the
  /// store keeps in memory (RocketMQ GetMessageResult
  /// suggestPullingFromSlave): a master with slaveReadEnable points the
  /// consumer at a slave.
  bool suggest_pulling_from_slave = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_message_result& x) {
  return f(caf::meta::type_name("rmq.get_message_result"), x.status,
           x.next_begin_offset, x.min_offset, x.max_offset, x.buffer,
           x.phys_offsets, x.queue_offsets, x.suggest_pulling_from_slave);
}

bool operator==(const get_message_result& x, const get_message_result& y);
void to_json(nlohmann::json& out, const get_message_result& x);

/// Names one queue (RocketMQ GetMinOffset/GetMaxOffsetRequestHeader).
struct get_offset_request {
  std::string topic;
  int32_t queue_id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_offset_request& x) {
  return f(caf::meta::type_name("rmq.get_offset_request"), x.topic, x.queue_id);
}

bool operator==(const get_offset_request& x, const get_offset_request& y);
void to_json(nlohmann::json& out, const get_offset_request& x);

/// Logical offsets of a queue: [min_offset, max_offset).
struct queue_offsets {
  int64_t min_offset = 0;
  int64_t max_offset = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, queue_offsets& x) {
  return f(caf::meta::type_name("rmq.queue_offsets"), x.min_offset,
           x.max_offset);
}

bool operator==(const queue_offsets& x, const queue_offsets& y);
void to_json(nlohmann::json& out, const queue_offsets& x);

/// Finds the first queue offset stored at or after `timestamp` (ms).
struct search_offset_request {
  std::string topic;
  int32_t queue_id = 0;
  int64_t timestamp = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, search_offset_request& x) {
  return f(caf::meta::type_name("rmq.search_offset_request"), x.topic,
           x.queue_id, x.timestamp);
}

bool operator==(const search_offset_request& x, const search_offset_request& y);
void to_json(nlohmann::json& out, const search_offset_request& x);

/// Looks messages up by key or unique id through the index
/// (RocketMQ QueryMessageRequestHeader); times are store timestamps in ms.
struct query_message_request {
  std::string topic;
  std::string key;
  int32_t max_num = 32;
  int64_t begin_timestamp = 0;
  int64_t end_timestamp = INT64_MAX;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, query_message_request& x) {
  return f(caf::meta::type_name("rmq.query_message_request"), x.topic, x.key,
           x.max_num, x.begin_timestamp, x.end_timestamp);
}

bool operator==(const query_message_request& x, const query_message_request& y);
void to_json(nlohmann::json& out, const query_message_request& x);

/// Raw records found by a lookup, concatenated, plus where each one lives.
struct query_message_result {
  std::string buffer;
  std::vector<int64_t> phys_offsets;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, query_message_result& x) {
  return f(caf::meta::type_name("rmq.query_message_result"), x.buffer,
           x.phys_offsets);
}

bool operator==(const query_message_result& x, const query_message_result& y);
void to_json(nlohmann::json& out, const query_message_result& x);

} // namespace rmq
