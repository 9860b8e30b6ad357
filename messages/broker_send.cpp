#include "messages/broker_send.hpp"

#include "messages/message_def.hpp"

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
                   queue_offset, entries)

} // namespace rmq
