#include "messages/broker_schedule.hpp"

#include "messages/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(schedule_level_progress, level, delay_ms, offset, max_offset,
                   delivered)

RMQ_DEFINE_MESSAGE(schedule_progress, levels)

} // namespace rmq
