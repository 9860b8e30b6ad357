#include "runtime/message/real_topic_message.hpp"

#include <algorithm>
#include <string>

#include "messages/common/errors.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_properties.hpp"

namespace rmq {

store_message copy_record(const record_view& rec) {
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

caf::expected<store_message>
real_topic_message(const record_view& rec, std::string_view what,
                   int64_t max_queue_id,
                   std::initializer_list<std::string_view> drop) {
  auto fail = [&](const char* why) {
    return make_error(errc::corrupt_data, std::string{what} + " at "
                                            + std::to_string(rec.phys_offset)
                                            + ": " + why);
  };
  auto topic = find_property(rec.properties, property_real_topic);
  if (topic.empty())
    return fail("no REAL_TOPIC");
  int64_t qid = -1;
  if (!parse_int64(find_property(rec.properties, property_real_queue_id), qid)
      || qid < 0 || qid > max_queue_id)
    return fail("no valid REAL_QID");
  auto props = decode_properties(rec.properties);
  if (!props)
    return fail("malformed properties");
  props->erase(std::remove_if(props->begin(), props->end(),
                              [&](auto& kv) {
                                return std::find(drop.begin(), drop.end(),
                                                 kv.first)
                                       != drop.end();
                              }),
               props->end());
  auto msg = copy_record(rec);
  msg.topic = std::string{topic};
  msg.queue_id = static_cast<int32_t>(qid);
  msg.properties = encode_properties(*props);
  return msg;
}

} // namespace rmq
