#include "messages/broker/admin.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(update_topic_request, config)
RMQ_DEFINE_MESSAGE(delete_topic_in_broker_request, topic)
RMQ_DEFINE_EMPTY_MESSAGE(get_all_topic_config_request)
RMQ_DEFINE_MESSAGE(update_sub_group_request, config)
RMQ_DEFINE_MESSAGE(delete_sub_group_request, group)
RMQ_DEFINE_EMPTY_MESSAGE(get_all_sub_group_request)
RMQ_DEFINE_MESSAGE(earliest_msg_store_time_request, topic, queue_id)
RMQ_DEFINE_MESSAGE(view_message_request, commit_log_offset)
RMQ_DEFINE_MESSAGE(topic_stats_request, topic)
RMQ_DEFINE_MESSAGE(queue_stats, queue_id, min_offset, max_offset,
                   last_update_timestamp)
RMQ_DEFINE_MESSAGE(topic_stats, topic, broker_name, queues)
RMQ_DEFINE_MESSAGE(consume_stats_request, consumer_group, topic)
RMQ_DEFINE_MESSAGE(queue_progress, topic, broker_name, queue_id, broker_offset,
                   consumer_offset, last_timestamp)
RMQ_DEFINE_MESSAGE(consume_stats, queues, consume_tps)
RMQ_DEFINE_EMPTY_MESSAGE(broker_runtime_info_request)
RMQ_DEFINE_MESSAGE(broker_runtime_info, table)

} // namespace rmq
