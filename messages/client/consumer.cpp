#include "messages/client/consumer.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(received_message, topic, tags, keys, body, properties,
                   system_properties, msg_id, offset_msg_id, broker_name,
                   queue_id, queue_offset, commit_log_offset, reconsume_times,
                   born_timestamp, store_timestamp, born_host, store_host,
                   delay_level, flag, sys_flag, stored_size)

RMQ_DEFINE_MESSAGE(rebalance_subscription, group, model, topics, strategy)

RMQ_DEFINE_MESSAGE(queue_assignment, topic, queues)

RMQ_DEFINE_MESSAGE(consume_result, status, error, batch, calls, retried_calls)

} // namespace rmq
