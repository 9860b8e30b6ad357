// RocketMQ's delay levels (MessageStoreConfig#messageDelayLevel,
// ScheduleMessageService): the table of delays, the level <-> queue mapping
// of SCHEDULE_TOPIC_XXXX, and the two rewrites of a delayed message: into
// the schedule topic when it is stored (HookUtils#transformDelayLevelMessage)
// and back to its real topic when it is due (messageTimeUp). The one place
// for these rules: the send and send-back processors, the store (tags codes)
// and the schedule service use it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/store/store.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

/// The topic delayed messages wait in; queue L - 1 holds level L.
constexpr char schedule_topic[] = "SCHEDULE_TOPIC_XXXX";

/// RocketMQ's default messageDelayLevel.
constexpr char default_message_delay_level[]
  = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";

/// The topic and queue a scheduled message goes to when it is due
/// (MessageConst PROPERTY_REAL_TOPIC, PROPERTY_REAL_QUEUE_ID).
constexpr char property_real_topic[] = "REAL_TOPIC";
constexpr char property_real_queue_id[] = "REAL_QID";

/// Delays in ms, level 1 first.
using delay_table = std::vector<int64_t>;

/// Parses a messageDelayLevel string: tokens `<n><unit>` separated by
/// spaces, unit s, m, h or d (RocketMQ parseDelayLevel). invalid_parameter
/// for an empty table, a bad token or a negative delay.
caf::expected<delay_table> parse_delay_levels(std::string_view text);

/// Queue of SCHEDULE_TOPIC_XXXX for `level` (1-based).
constexpr int32_t delay_level_to_queue(int32_t level) {
  return level - 1;
}

/// Level held by queue `queue_id` of SCHEDULE_TOPIC_XXXX.
constexpr int32_t queue_to_delay_level(int32_t queue_id) {
  return queue_id + 1;
}

/// Delay of `level` in ms; levels above the table take its last one,
/// levels below 1 have none.
int64_t level_delay_ms(const delay_table& delays, int32_t level);

/// When a message stored at `store_ts` with `level` is due
/// (computeDeliverTimestamp); the consume-queue tags code of its unit.
int64_t deliver_timestamp(const delay_table& delays, int32_t level,
                          int64_t store_ts);

/// The delay level of a record's DELAY property, or 0 (none, or not a
/// number).
int32_t stored_delay_level(std::string_view properties);

/// Rewrites `msg` into SCHEDULE_TOPIC_XXXX if it has a DELAY level > 0 and
/// is neither a prepared nor a rolled-back transaction message: the level
/// is clamped to `max_level` (the DELAY property too), REAL_TOPIC and
/// REAL_QID keep the topic and queue, the queue becomes level - 1. Returns
/// the level, 0 if `msg` was left as it is, or message_illegal for a
/// DELAY that is not a level.
caf::expected<int32_t> to_schedule(store_message& msg, int32_t max_level);

/// Rebuilds the message to deliver from a stored schedule record
/// (messageTimeUp): body, flag, sys flag, born time and host, reconsume
/// times and every property but DELAY (UNIQ_KEY, TAGS, REAL_TOPIC and
/// REAL_QID stay, as in RocketMQ); topic and queue from REAL_TOPIC and
/// REAL_QID. corrupt_data if either is missing or malformed.
caf::expected<store_message> from_schedule(const record_view& rec);

} // namespace rmq
