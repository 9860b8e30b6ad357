#include "messages/broker/schedule.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(schedule_level_progress, level, delay_ms, offset, max_offset,
                   delivered)

RMQ_DEFINE_MESSAGE(schedule_progress, levels)

} // namespace rmq
