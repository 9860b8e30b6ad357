#include "messages/broker/reply.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(send_reply_message_request, request)

RMQ_DEFINE_MESSAGE(push_reply_message, producer_group, topic, queue_id,
                   sys_flag, born_timestamp, flag, properties, reconsume_times,
                   born_host, store_host, store_timestamp, body)

} // namespace rmq
