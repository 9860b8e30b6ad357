#include "messages/broker/topics.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(topic_config_set, topics, version)

RMQ_DEFINE_MESSAGE(topic_for_send_request, topic, default_topic,
                   default_queue_nums, topic_sys_flag)

RMQ_DEFINE_MESSAGE(group_topic_request, group, queue_nums, perm, dlq)

} // namespace rmq
