#include "messages/broker/send_back.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(consumer_send_back_request, offset, group, delay_level,
                   origin_msg_id, origin_topic, max_reconsume_times, unit_mode)

} // namespace rmq
