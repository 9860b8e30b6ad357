#include "runtime/broker/delivered_copy.hpp"

#include <string>

#include "runtime/message/log_format.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

bool has_uniq_key(const store_message& msg) {
  return !find_property(msg.properties, property_uniq_key).empty();
}

query_message_request delivered_copy_query(const store_message& msg) {
  query_message_request q;
  q.topic = msg.topic;
  q.key = std::string{find_property(msg.properties, property_uniq_key)};
  q.max_num = 32;
  return q;
}

bool holds_delivered_copy(const query_message_result& res,
                          const store_message& msg, int64_t not_before_ts) {
  size_t pos = 0;
  for (size_t i = 0; i < res.phys_offsets.size() && pos < res.buffer.size();
       ++i) {
    record_view rec;
    if (decode_record(res.buffer.data() + pos, res.buffer.size() - pos, rec,
                      false)
        != decode_status::ok)
      return false;
    pos += static_cast<size_t>(rec.total_size);
    if (rec.topic == msg.topic && rec.queue_id == msg.queue_id
        && rec.reconsume_times == msg.reconsume_times
        && rec.store_timestamp >= not_before_ts)
      return true;
  }
  return false;
}

} // namespace rmq
