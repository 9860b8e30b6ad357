// A stored record as a message to store again, and the message that a
// record waiting in a system topic stands for: delay levels
// (SCHEDULE_TOPIC_XXXX), timers (rmq_sys_wheel_timer) and transaction half
// messages keep their real topic and queue in REAL_TOPIC and REAL_QID.
// Shared by from_schedule, from_timer and from_half.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "caf/expected.hpp"

#include "messages/store/store.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

/// The record as a message: topic, queue, flag, sys flag, born time and
/// host, reconsume times, prepared transaction offset, body and
/// properties as stored.
store_message copy_record(const record_view& rec);

/// `copy_record(rec)` in the topic and queue of its REAL_TOPIC and
/// REAL_QID (0 to `max_queue_id`), without the properties `drop`.
/// corrupt_data ("<what> at <commit-log offset>: ...") if either is
/// missing or malformed, or the properties are.
caf::expected<store_message>
real_topic_message(const record_view& rec, std::string_view what,
                   int64_t max_queue_id,
                   std::initializer_list<std::string_view> drop);

} // namespace rmq
