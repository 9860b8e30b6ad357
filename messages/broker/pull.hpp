// Pulls, long polling and consumer offsets (RocketMQ PullMessageProcessor,
// PullRequestHoldService, ConsumerOffsetManager): the typed interfaces of
// actors/broker/processor/pull_processor.*, pull_hold_service.* and
// consumer_offset_table.*, and the requests and answers they exchange.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/topics.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/store/store.hpp"

namespace rmq {

// -- atoms --------------------------------------------------------------------

/// Parks a pull in the hold service until a message arrives or it times out.
using suspend_atom = caf::atom_constant<caf::atom("suspend")>;

/// The hold service's timer for one deadline.
using expire_atom = caf::atom_constant<caf::atom("expire")>;

// -- pulls --------------------------------------------------------------------

/// Bits of pull_message_request::sys_flag (RocketMQ PullSysFlag).
namespace pull_sys_flag {
constexpr int32_t commit_offset = 1;
constexpr int32_t suspend = 2;
constexpr int32_t subscription = 4;
constexpr int32_t class_filter = 8;
constexpr int32_t lite_pull = 16;
} // namespace pull_sys_flag

/// What a pull found (RocketMQ PullStatus, as the client sees it).
enum class pull_status : uint8_t {
  found = 0,
  no_new_msg,
  no_matched_msg,
  offset_illegal,
};

/// Returns "FOUND", "NO_NEW_MSG", "NO_MATCHED_MSG" or "OFFSET_ILLEGAL".
std::string to_string(pull_status x);

/// Reads messages of one queue (RocketMQ PullMessageRequestHeader).
struct pull_message_request {
  std::string consumer_group;
  std::string topic;
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  int32_t max_msg_nums = 32;
  int32_t max_msg_bytes = INT32_MAX;
  int32_t sys_flag = 0; // pull_sys_flag bits
  int64_t commit_offset = 0;
  int64_t suspend_timeout_ms = 15000;
  std::string subscription = "*"; // "*" or "tagA || tagB"
  int64_t sub_version = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pull_message_request& x) {
  return f(caf::meta::type_name("rmq.pull_message_request"), x.consumer_group,
           x.topic, x.queue_id, x.queue_offset, x.max_msg_nums, x.max_msg_bytes,
           x.sys_flag, x.commit_offset, x.suspend_timeout_ms, x.subscription,
           x.sub_version);
}

RMQ_DECLARE_MESSAGE(pull_message_request);

/// The answer to a pull (RocketMQ PullMessageResponseHeader + body): the
/// found records exactly as stored, concatenated in one buffer.
struct pull_message_result {
  uint8_t status = 0; // a pull_status
  int64_t next_begin_offset = 0;
  int64_t min_offset = 0;
  int64_t max_offset = 0;
  int64_t suggest_which_broker_id = 0; // 0: the master
  std::string buffer;
  int32_t message_count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pull_message_result& x) {
  return f(caf::meta::type_name("rmq.pull_message_result"), x.status,
           x.next_begin_offset, x.min_offset, x.max_offset,
           x.suggest_which_broker_id, x.buffer, x.message_count);
}

RMQ_DECLARE_MESSAGE(pull_message_result);

// -- consumer offsets ---------------------------------------------------------

/// One queue's committed offset of a group (QUERY_CONSUMER_OFFSET).
struct query_offset_request {
  std::string consumer_group;
  std::string topic;
  int32_t queue_id = 0;
  /// false: an unknown offset is always query_not_found.
  bool set_zero_if_not_found = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, query_offset_request& x) {
  return f(caf::meta::type_name("rmq.query_offset_request"), x.consumer_group,
           x.topic, x.queue_id, x.set_zero_if_not_found);
}

RMQ_DECLARE_MESSAGE(query_offset_request);

/// Commits one queue's offset of a group (UPDATE_CONSUMER_OFFSET).
struct update_offset_request {
  std::string consumer_group;
  std::string topic;
  int32_t queue_id = 0;
  int64_t commit_offset = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, update_offset_request& x) {
  return f(caf::meta::type_name("rmq.update_offset_request"), x.consumer_group,
           x.topic, x.queue_id, x.commit_offset);
}

RMQ_DECLARE_MESSAGE(update_offset_request);

/// Lists a group's offsets of one topic, or of every topic when `topic` is
/// empty (what consumerProgress needs); an empty group lists every group's
/// (what a slave takes from its master).
struct list_offsets_request {
  std::string consumer_group;
  std::string topic;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, list_offsets_request& x) {
  return f(caf::meta::type_name("rmq.list_offsets_request"), x.consumer_group,
           x.topic);
}

RMQ_DECLARE_MESSAGE(list_offsets_request);

/// A group's committed offsets of one topic: queue id -> offset.
struct consumer_offsets {
  std::string consumer_group;
  std::string topic;
  std::map<int32_t, int64_t> offsets;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_offsets& x) {
  return f(caf::meta::type_name("rmq.consumer_offsets"), x.consumer_group,
           x.topic, x.offsets);
}

RMQ_DECLARE_MESSAGE(consumer_offsets);

// -- interfaces ---------------------------------------------------------------

/// Interface of the pull processor: validates a pull against the topic
/// table, reads through the queue service and maps the store's status to
/// RocketMQ's. Refusals are errors: topic_not_exist, no_permission (topic
/// not readable), invalid_parameter (queue id out of range),
/// subscription_parse_failed.
/// A consumer group's found-message rate at this broker over the last
/// minute, in messages per second (RocketMQ's GROUP_GET_NUMS stats behind
/// consumerProgress's "Consume TPS"): of one topic, or of every topic
/// when `topic` is empty.
struct group_pull_rate_request {
  std::string consumer_group;
  std::string topic;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, group_pull_rate_request& x) {
  return f(caf::meta::type_name("rmq.group_pull_rate_request"),
           x.consumer_group, x.topic);
}

RMQ_DECLARE_MESSAGE(group_pull_rate_request);

using pull_processor_actor = dumpable_actor::extend<
  caf::replies_to<pull_message_request>::with<pull_message_result>,
  // A parked pull (suspend flag cleared) and the read the queue service made
  // for it: answered as if the processor had read it itself.
  caf::replies_to<pull_message_request,
                  get_message_result>::with<pull_message_result>,
  caf::replies_to<group_pull_rate_request>::with<double>,
  // The topic table's announcement to its watchers (actors/broker/
  // topic_cache.hpp).
  caf::reacts_to<caf::put_atom, topic_config_set>>;

/// Interface of the long-polling hold service. A parked pull is re-executed
/// once, without suspension, through the given processor when a matching
/// message arrives or its suspend timeout ends.
using pull_hold_service_actor = dumpable_actor::extend<
  // A pull that found nothing, with the read the processor made for it.
  caf::replies_to<suspend_atom, pull_message_request, get_message_request,
                  pull_processor_actor>::with<pull_message_result>,
  // From the queue service, on the hold's watch: this queue has messages up to
  // this max offset now (and, for a watch with a read, that read's result
  // for the parked pull `id`).
  caf::reacts_to<arrival_atom, std::string, int32_t, int64_t>,
  caf::reacts_to<arrival_atom, std::string, int32_t, int64_t, int64_t,
                 get_message_result>,
  // Timer of the pulls whose deadline is this actor-clock instant (ns
  // since the clock's epoch).
  caf::reacts_to<expire_atom, int64_t>>;

/// Interface of the consumer offset table (config/consumerOffset.json).
using consumer_offset_table_actor = dumpable_actor::extend<
  // The committed offset, or query_not_found (RocketMQ's rule: an unknown
  // offset is 0 while the queue's message 0 is still stored).
  caf::replies_to<query_offset_request>::with<int64_t>,
  caf::reacts_to<update_offset_request>,
  caf::replies_to<list_offsets_request>::with<std::vector<consumer_offsets>>,
  // A slave takes its master's offsets, each only forward.
  caf::reacts_to<sync_atom, std::vector<consumer_offsets>>,
  // Forgets every group's offsets of a deleted topic (RocketMQ
  // cleanOffsetByTopic); answers how many group entries went.
  caf::replies_to<caf::delete_atom, std::string>::with<int64_t>,
  // Persist now; answers how many entries were written.
  caf::replies_to<flush_atom>::with<int64_t>,
  // Persist timer.
  caf::reacts_to<tick_atom>>;

} // namespace rmq
