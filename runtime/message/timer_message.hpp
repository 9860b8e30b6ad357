// RocketMQ 5's any-time delivery (the timer, TimerMessageStore): the
// properties a timed message carries, the rewrite of such a message into
// the timer topic when it is stored (HookUtils#transformTimerMessage) and
// back to its real topic and queue when it is due (convertMessage). The one
// place for these rules: the producer's codec, the send processor, the
// store (tags codes) and the timer service use it. See docs/timer.md.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "caf/expected.hpp"

#include "messages/store/store.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

/// The topic timed messages wait in (TimerMessageStore.TIMER_TOPIC), one
/// queue (0).
constexpr char timer_topic[] = "rmq_sys_wheel_timer";

/// Wall-clock ms at which the message is due (MessageConst).
constexpr char property_timer_deliver_ms[] = "TIMER_DELIVER_MS";
/// Delay in seconds from the message's arrival at the broker.
constexpr char property_timer_delay_sec[] = "TIMER_DELAY_SEC";
/// Delay in ms from the message's arrival at the broker.
constexpr char property_timer_delay_ms[] = "TIMER_DELAY_MS";
/// The second (a multiple of the precision) the broker fires the message
/// at; set by the rewrite, the tags code of its timer-topic unit.
constexpr char property_timer_out_ms[] = "TIMER_OUT_MS";

/// RocketMQ timerMaxDelaySec: 3 days.
constexpr int64_t default_timer_max_delay_sec = 3 * 24 * 3600;
/// RocketMQ timerPrecisionMs.
constexpr int64_t default_timer_precision_ms = 1000;

/// The broker's timer settings (MessageStoreConfig names).
struct timer_settings {
  /// timerMaxDelaySec: a later deliver time is refused.
  int64_t max_delay_sec = default_timer_max_delay_sec;
  /// timerPrecisionMs: deliver times are rounded up to a multiple of it.
  int64_t precision_ms = default_timer_precision_ms;
};

/// The properties that make a message timed.
constexpr std::array<std::string_view, 3> timer_properties{
  property_timer_deliver_ms, property_timer_delay_sec, property_timer_delay_ms};

/// Returns whether `props` carry TIMER_DELIVER_MS, TIMER_DELAY_SEC or
/// TIMER_DELAY_MS.
bool has_timer_property(std::string_view props);

/// Returns the first multiple of `precision_ms` at or after `deliver_ms`:
/// the slot the message fires in (never before its deliver time).
constexpr int64_t timer_slot_ms(int64_t deliver_ms, int64_t precision_ms) {
  auto q = deliver_ms / precision_ms;
  if (q * precision_ms < deliver_ms)
    ++q;
  return q * precision_ms;
}

/// Rewrites `msg` into the timer topic (queue 0) if it carries a timer
/// property, is not a prepared or rolled-back transaction message, has no
/// DELAY level (the level wins and the timer properties are dropped, as in
/// RocketMQ) and is not already a timer record (TIMER_OUT_MS): its deliver
/// time is TIMER_DELAY_SEC or TIMER_DELAY_MS after `now_ms` (the store's
/// clock), else TIMER_DELIVER_MS. A time due within the precision is left
/// to be stored normally. REAL_TOPIC and REAL_QID keep the topic and queue,
/// TIMER_OUT_MS the slot. Returns the slot, 0 if `msg` was left as a plain
/// message, or message_illegal for a value that is not a number or a
/// deliver time beyond `max_delay_sec`.
caf::expected<int64_t> to_timer(store_message& msg, int64_t now_ms,
                                const timer_settings& settings);

/// The TIMER_OUT_MS of a stored timer record, or -1 (none, or not a
/// number): the tags code of its timer-topic unit.
int64_t stored_timer_out_ms(std::string_view properties);

/// Rebuilds the message to deliver from a stored timer record: body, flag,
/// sys flag, born time and host, reconsume times and the properties but
/// REAL_TOPIC and REAL_QID (RocketMQ convertMessage clears both); topic
/// and queue from them. corrupt_data if either is missing or malformed.
caf::expected<store_message> from_timer(const record_view& rec);

} // namespace rmq
