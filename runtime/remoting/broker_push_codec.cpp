#include "runtime/remoting/broker_push_codec.hpp"

#include <string>

#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::remoting {

namespace {

remoting_command request(int32_t code, bool oneway) {
  remoting_command cmd;
  cmd.code = code;
  if (oneway)
    cmd.flag = command_flag::oneway;
  return cmd;
}

} // namespace

remoting_command notify_consumer_ids_changed(const consumer_ids_changed& x) {
  auto cmd = request(request_code::notify_consumer_ids_changed, true);
  cmd.ext_fields["consumerGroup"] = x.group;
  return cmd;
}

remoting_command check_transaction_request(const check_transaction_state& x) {
  auto cmd = request(request_code::check_transaction_state, true);
  auto& f = cmd.ext_fields;
  f["tranStateTableOffset"] = std::to_string(x.tran_state_table_offset);
  f["commitLogOffset"] = std::to_string(x.commit_log_offset);
  f["msgId"] = x.msg_id;
  f["transactionId"] = x.transaction_id;
  f["offsetMsgId"] = x.offset_msg_id;
  f["brokerName"] = x.broker_name;
  cmd.body = x.record;
  return cmd;
}

remoting_command push_reply_request(const push_reply_message& x) {
  auto cmd = request(request_code::push_reply_message_to_client, false);
  auto& f = cmd.ext_fields;
  f["producerGroup"] = x.producer_group;
  f["topic"] = x.topic;
  f["defaultTopic"] = "TBW102";
  f["defaultTopicQueueNums"] = "4";
  f["queueId"] = std::to_string(x.queue_id);
  f["sysFlag"] = std::to_string(x.sys_flag);
  f["bornTimestamp"] = std::to_string(x.born_timestamp);
  f["flag"] = std::to_string(x.flag);
  f["properties"] = x.properties;
  f["reconsumeTimes"] = std::to_string(x.reconsume_times);
  f["unitMode"] = "false";
  f["bornHost"] = x.born_host;
  f["storeHost"] = x.store_host;
  f["storeTimestamp"] = std::to_string(x.store_timestamp);
  cmd.body = x.body;
  return cmd;
}

} // namespace rmq::remoting
