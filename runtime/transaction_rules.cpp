#include "runtime/transaction_rules.hpp"

#include <algorithm>
#include <charconv>

#include "messages/errors.hpp"
#include "runtime/delay_levels.hpp"
#include "runtime/message_properties.hpp"
#include "runtime/storage/log_format.hpp"

namespace rmq {

namespace {

bool parse_i64(std::string_view text, int64_t& out) {
  if (text.empty())
    return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

store_message base_copy(const storage::record_view& rec) {
  store_message msg;
  msg.topic = std::string{rec.topic};
  msg.queue_id = rec.queue_id;
  msg.flag = rec.flag;
  msg.sys_flag = rec.sys_flag;
  msg.born_timestamp = rec.born_timestamp;
  msg.born_ip = rec.born_ip;
  msg.born_port = rec.born_port;
  msg.reconsume_times = rec.reconsume_times;
  msg.prepared_transaction_offset = rec.prepared_transaction_offset;
  msg.body = std::string{rec.body};
  msg.properties = std::string{rec.properties};
  return msg;
}

} // namespace

bool has_tran_msg(std::string_view properties) {
  return storage::find_property(properties, property_tran_msg) == "true";
}

bool is_half_message(std::string_view properties, int32_t reconsume_times,
                     int32_t delay_level) {
  return has_tran_msg(properties) && !(reconsume_times > 0 && delay_level > 0);
}

void to_half(store_message& msg) {
  auto uniq = storage::find_property(msg.properties, property_uniq_key);
  if (!uniq.empty())
    set_property(msg.properties, property_transaction_id, std::string{uniq});
  set_property(msg.properties, property_real_topic, msg.topic);
  set_property(msg.properties, property_real_queue_id,
               std::to_string(msg.queue_id));
  msg.sys_flag &= ~storage::sys_flag::transaction_mask;
  msg.topic = trans_half_topic;
  msg.queue_id = 0;
}

caf::expected<store_message> from_half(const storage::record_view& rec) {
  auto fail = [&](const char* what) {
    return make_error(errc::corrupt_data, "half message at "
                                            + std::to_string(rec.phys_offset)
                                            + ": " + what);
  };
  auto topic = storage::find_property(rec.properties, property_real_topic);
  if (topic.empty())
    return fail("no REAL_TOPIC");
  int64_t qid = -1;
  if (!parse_i64(storage::find_property(rec.properties, property_real_queue_id),
                 qid)
      || qid < 0 || qid > storage::max_queue_id)
    return fail("no valid REAL_QID");
  auto props = decode_properties(rec.properties);
  if (!props)
    return fail("malformed properties");
  props->erase(std::remove_if(props->begin(), props->end(),
                              [](auto& kv) {
                                return kv.first == property_real_topic
                                       || kv.first == property_real_queue_id
                                       || kv.first == property_tran_msg;
                              }),
               props->end());
  auto msg = base_copy(rec);
  msg.topic = std::string{topic};
  msg.queue_id = static_cast<int32_t>(qid);
  msg.sys_flag = (rec.sys_flag & ~storage::sys_flag::transaction_mask)
                 | storage::sys_flag::transaction_commit;
  msg.prepared_transaction_offset = rec.phys_offset;
  msg.properties = encode_properties(*props);
  return msg;
}

store_message half_copy(const storage::record_view& rec, int32_t check_times) {
  auto msg = base_copy(rec);
  set_property(msg.properties, property_transaction_check_times,
               std::to_string(check_times));
  return msg;
}

store_message to_check_max_time(const storage::record_view& rec) {
  auto msg = base_copy(rec);
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
  storage::append_property(msg.properties, property_tags, op_remove_tag);
  if (!transaction_id.empty())
    storage::append_property(msg.properties, property_transaction_id,
                             transaction_id);
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
    if (parse_i64(body.substr(pos, end - pos), x) && x >= 0)
      out.push_back(x);
    pos = end + 1;
  }
  return out;
}

int32_t stored_check_times(std::string_view properties) {
  int64_t x = 0;
  if (!parse_i64(
        storage::find_property(properties, property_transaction_check_times), x)
      || x < 0)
    return 0;
  return static_cast<int32_t>(std::min<int64_t>(x, INT32_MAX));
}

int64_t check_immunity_ms(std::string_view properties,
                          int64_t transaction_timeout_ms) {
  int64_t x = 0;
  if (!parse_i64(
        storage::find_property(properties, property_check_immunity_time), x)
      || x < 0)
    return transaction_timeout_ms;
  return x * 1000;
}

} // namespace rmq
