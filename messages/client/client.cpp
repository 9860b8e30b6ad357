#include "messages/client/client.hpp"

#include <tuple>

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(message_queue, topic, broker_name, queue_id)

bool operator<(const message_queue& x, const message_queue& y) {
  return std::tie(x.topic, x.broker_name, x.queue_id)
         < std::tie(y.topic, y.broker_name, y.queue_id);
}

RMQ_DEFINE_MESSAGE(client_message, topic, tags, keys, body, properties,
                   delay_level, flag, deliver_time_ms, delay_ms)

RMQ_DEFINE_MESSAGE(client_send_result, status, msg_id, offset_msg_id, queue,
                   queue_offset, entries)

RMQ_DEFINE_MESSAGE(fault_report, broker_name, latency_ms, isolation, reachable)

RMQ_DEFINE_MESSAGE(fault_item, broker_name, latency_ms, available_at_ns,
                   reachable)

RMQ_DEFINE_MESSAGE(fault_snapshot, items)

} // namespace rmq
