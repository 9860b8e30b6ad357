#include "messages/broker/pull.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

std::string to_string(pull_status x) {
  switch (x) {
    case pull_status::found:
      return "FOUND";
    case pull_status::no_new_msg:
      return "NO_NEW_MSG";
    case pull_status::no_matched_msg:
      return "NO_MATCHED_MSG";
    case pull_status::offset_illegal:
      return "OFFSET_ILLEGAL";
  }
  return "UNKNOWN";
}

RMQ_DEFINE_MESSAGE(pull_message_request, consumer_group, topic, queue_id,
                   queue_offset, max_msg_nums, max_msg_bytes, sys_flag,
                   commit_offset, suspend_timeout_ms, subscription, sub_version)

RMQ_DEFINE_MESSAGE(pull_message_result, status, next_begin_offset, min_offset,
                   max_offset, suggest_which_broker_id, buffer, message_count)

RMQ_DEFINE_MESSAGE(query_offset_request, consumer_group, topic, queue_id,
                   set_zero_if_not_found)

RMQ_DEFINE_MESSAGE(update_offset_request, consumer_group, topic, queue_id,
                   commit_offset)

RMQ_DEFINE_MESSAGE(list_offsets_request, consumer_group, topic)

RMQ_DEFINE_MESSAGE(consumer_offsets, consumer_group, topic, offsets)

RMQ_DEFINE_MESSAGE(group_pull_rate_request, consumer_group, topic)

} // namespace rmq
