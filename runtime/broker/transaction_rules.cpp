#include "runtime/broker/transaction_rules.hpp"

#include <algorithm>
#include <cstdint>

#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/real_topic_message.hpp"

namespace rmq {

bool has_tran_msg(std::string_view properties) {
  return find_property(properties, property_tran_msg) == "true";
}

bool is_half_message(std::string_view properties, int32_t reconsume_times,
                     int32_t delay_level) {
  return has_tran_msg(properties) && !(reconsume_times > 0 && delay_level > 0);
}

void to_half(store_message& msg) {
  auto uniq = find_property(msg.properties, property_uniq_key);
  if (!uniq.empty())
    set_property(msg.properties, property_transaction_id, std::string{uniq});
  set_property(msg.properties, property_real_topic, msg.topic);
  set_property(msg.properties, property_real_queue_id,
               std::to_string(msg.queue_id));
  msg.sys_flag &= ~sys_flag::transaction_mask;
  msg.topic = trans_half_topic;
  msg.queue_id = 0;
}

caf::expected<store_message> from_half(const record_view& rec) {
  auto msg = real_topic_message(rec, "half message", max_queue_id,
                                {property_real_topic, property_real_queue_id,
                                 property_tran_msg});
  if (!msg)
    return msg;
  msg->sys_flag = (rec.sys_flag & ~sys_flag::transaction_mask)
                  | sys_flag::transaction_commit;
  msg->prepared_transaction_offset = rec.phys_offset;
  return msg;
}

store_message half_copy(const record_view& rec, int32_t check_times) {
  auto msg = copy_record(rec);
  set_property(msg.properties, property_transaction_check_times,
               std::to_string(check_times));
  return msg;
}

store_message to_check_max_time(const record_view& rec) {
  auto msg = copy_record(rec);
  msg.topic = trans_check_max_time_topic;
  msg.queue_id = 0;
  return msg;
}

store_message make_op_message(int64_t half_queue_offset,
                              std::string_view transaction_id, int64_t now_ms) {
  store_message msg;
  msg.topic = trans_op_half_topic;
  msg.queue_id = 0;
  msg.born_timestamp = now_ms;
  msg.body = std::to_string(half_queue_offset);
  append_property(msg.properties, property_tags, op_remove_tag);
  if (!transaction_id.empty())
    append_property(msg.properties, property_transaction_id, transaction_id);
  return msg;
}

std::vector<int64_t> parse_op_offsets(std::string_view body) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos <= body.size()) {
    auto end = body.find(',', pos);
    if (end == std::string_view::npos)
      end = body.size();
    int64_t x = 0;
    if (parse_int64(body.substr(pos, end - pos), x) && x >= 0)
      out.push_back(x);
    pos = end + 1;
  }
  return out;
}

int32_t stored_check_times(std::string_view properties) {
  int64_t x = 0;
  if (!parse_int64(find_property(properties, property_transaction_check_times),
                   x)
      || x < 0)
    return 0;
  return static_cast<int32_t>(std::min<int64_t>(x, INT32_MAX));
}

int64_t check_immunity_ms(std::string_view properties,
                          int64_t transaction_timeout_ms) {
  int64_t x = 0;
  if (!parse_int64(find_property(properties, property_check_immunity_time), x)
      || x < 0)
    return transaction_timeout_ms;
  return x * 1000;
}

} // namespace rmq
