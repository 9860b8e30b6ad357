#include "runtime/message/timer_message.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/real_topic_message.hpp"
#include "runtime/message/send_checks.hpp"

namespace rmq {

namespace {

bool has(std::string_view props, std::string_view key) {
  return !find_property(props, key).empty();
}

void remove_properties(std::string& props,
                       std::initializer_list<std::string_view> keys) {
  auto xs = decode_properties(props);
  if (!xs)
    return;
  auto before = xs->size();
  xs->erase(std::remove_if(xs->begin(), xs->end(),
                           [&](auto& kv) {
                             return std::find(keys.begin(), keys.end(),
                                              kv.first)
                                    != keys.end();
                           }),
            xs->end());
  if (xs->size() != before)
    props = encode_properties(*xs);
}

caf::error illegal(std::string what) {
  return make_error(errc::message_illegal, std::move(what));
}

} // namespace

bool has_timer_property(std::string_view props) {
  for (auto key : timer_properties)
    if (has(props, key))
      return true;
  return false;
}

caf::expected<int64_t> to_timer(store_message& msg, int64_t now_ms,
                                const timer_settings& settings) {
  auto tran = msg.sys_flag & sys_flag::transaction_mask;
  if (tran == sys_flag::transaction_prepared
      || tran == sys_flag::transaction_rollback)
    return 0;
  if (!has_timer_property(msg.properties))
    return 0;
  if (stored_delay_level(msg.properties) > 0) {
    // HookUtils#checkIfTimerMessage: the delay level wins.
    remove_properties(msg.properties,
                      {property_timer_deliver_ms, property_timer_delay_sec,
                       property_timer_delay_ms});
    return 0;
  }
  if (msg.topic == timer_topic || has(msg.properties, property_timer_out_ms))
    return 0;
  int64_t deliver = 0;
  int64_t n = 0;
  auto sec = find_property(msg.properties, property_timer_delay_sec);
  auto ms = find_property(msg.properties, property_timer_delay_ms);
  auto at = find_property(msg.properties, property_timer_deliver_ms);
  // One huge value must not overflow into the past.
  constexpr int64_t limit = INT64_MAX / 2000;
  if (!sec.empty()) {
    if (!parse_int64(sec, n) || n > limit || n < -limit)
      return illegal("TIMER_DELAY_SEC '" + std::string{sec}
                     + "' is not a number of seconds");
    deliver = now_ms + n * 1000;
  } else if (!ms.empty()) {
    if (!parse_int64(ms, n) || n > limit || n < -limit)
      return illegal("TIMER_DELAY_MS '" + std::string{ms}
                     + "' is not a number of ms");
    deliver = now_ms + n;
  } else {
    if (!parse_int64(at, n) || n > limit || n < -limit)
      return illegal("TIMER_DELIVER_MS '" + std::string{at}
                     + "' is not a time in ms");
    deliver = n;
  }
  auto precision = std::max<int64_t>(settings.precision_ms, 1);
  // Due within the precision: the wheel would fire it at once anyway.
  if (deliver - now_ms < precision)
    return 0;
  if (deliver - now_ms > settings.max_delay_sec * 1000)
    return illegal("the deliver time is " + std::to_string(deliver - now_ms)
                   + " ms ahead, more than timerMaxDelaySec "
                   + std::to_string(settings.max_delay_sec) + " s");
  auto slot = timer_slot_ms(deliver, precision);
  set_property(msg.properties, property_timer_out_ms, std::to_string(slot));
  set_property(msg.properties, property_real_topic, msg.topic);
  set_property(msg.properties, property_real_queue_id,
               std::to_string(msg.queue_id));
  msg.topic = timer_topic;
  msg.queue_id = 0;
  return slot;
}

int64_t stored_timer_out_ms(std::string_view properties) {
  int64_t n = 0;
  if (!parse_int64(find_property(properties, property_timer_out_ms), n))
    return -1;
  return n;
}

caf::expected<store_message> from_timer(const record_view& rec) {
  return real_topic_message(rec, "timer record", INT32_MAX,
                            {property_real_topic, property_real_queue_id});
}

} // namespace rmq
