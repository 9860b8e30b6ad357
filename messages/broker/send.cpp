#include "messages/broker/send.hpp"

#include <algorithm>

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(send_message_request, producer_group, topic, default_topic,
                   default_queue_nums, queue_id, sys_flag, born_timestamp,
                   born_ip, born_port, flag, properties, reconsume_times,
                   max_reconsume_times, batch, body)

std::string to_string(send_status x) {
  switch (x) {
    case send_status::send_ok:
      return "SEND_OK";
    case send_status::flush_disk_timeout:
      return "FLUSH_DISK_TIMEOUT";
    case send_status::flush_slave_timeout:
      return "FLUSH_SLAVE_TIMEOUT";
    case send_status::slave_not_available:
      return "SLAVE_NOT_AVAILABLE";
  }
  return "UNKNOWN";
}

RMQ_DEFINE_MESSAGE(send_entry, msg_id, offset_msg_id, queue_offset)

RMQ_DEFINE_MESSAGE(send_result, status, msg_id, offset_msg_id, queue_id,
                   queue_offset, queue_offsets)

std::vector<send_entry> entries_of(const send_result& res) {
  std::vector<send_entry> result;
  result.reserve(res.queue_offsets.size());
  std::string_view ids = res.msg_id;
  std::string_view offset_ids = res.offset_msg_id;
  for (auto offset : res.queue_offsets) {
    auto id = ids.substr(0, ids.find(','));
    auto offset_id = offset_ids.substr(0, offset_ids.find(','));
    result.push_back({std::string{id}, std::string{offset_id}, offset});
    ids.remove_prefix(std::min(ids.size(), id.size() + 1));
    offset_ids.remove_prefix(std::min(offset_ids.size(), offset_id.size() + 1));
  }
  return result;
}

} // namespace rmq
