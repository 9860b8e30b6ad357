#include "messages/broker/timer.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(queue_units_request, topic, queue_id, offset, max_count)

RMQ_DEFINE_MESSAGE(queue_unit, queue_offset, phys_offset, size, tags_code)

RMQ_DEFINE_MESSAGE(queue_units, min_offset, max_offset, units)

RMQ_DEFINE_MESSAGE(timer_progress, pending, next_due_ms, read_ms,
                   dequeue_lag_ms, enqueue_offset, enqueue_behind, delivered)

} // namespace rmq
