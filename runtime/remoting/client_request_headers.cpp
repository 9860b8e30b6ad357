#include "runtime/remoting/client_request_headers.hpp"

#include <cstdint>

#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::remoting {

const std::string* header_reader::find(const char* name, bool required) {
  auto x = cmd_.field(name);
  if (!x && required && error_.empty())
    error_ = std::string{"the custom field <"} + name + "> is null";
  return x;
}

bool header_reader::done(std::string& err) const {
  if (ok())
    return true;
  err = error_;
  return false;
}

std::string header_reader::text(const char* name, bool required) {
  auto x = find(name, required);
  return x ? *x : std::string{};
}

int64_t header_reader::int64(const char* name, bool required,
                             int64_t fallback) {
  auto x = find(name, required);
  if (!x)
    return fallback;
  auto v = parse_long(*x);
  if (!v) {
    if (error_.empty())
      error_ = std::string{"the custom field <"} + name
               + "> is no number: " + *x;
    return fallback;
  }
  return *v;
}

int32_t header_reader::int32(const char* name, bool required,
                             int32_t fallback) {
  auto v = int64(name, required, fallback);
  if (v < INT32_MIN || v > INT32_MAX) {
    if (error_.empty())
      error_ = std::string{"the custom field <"} + name
               + "> is out of the int range";
    return fallback;
  }
  return static_cast<int32_t>(v);
}

bool header_reader::boolean(const char* name, bool fallback) {
  return cmd_.bool_field(name, fallback);
}

bool decode_send(const remoting_command& cmd, send_message_request& out,
                 std::string& err) {
  header_reader r{cmd};
  bool v2 = cmd.code == request_code::send_message_v2
            || cmd.code == request_code::send_batch_message
            || cmd.code == request_code::send_reply_message_v2;
  // SendMessageRequestHeaderV2's names for V1's fields.
  auto name = [v2](const char* one_letter, const char* full) {
    return v2 ? one_letter : full;
  };
  out.producer_group = r.text(name("a", "producerGroup"));
  out.topic = r.text(name("b", "topic"));
  out.default_topic = r.text(name("c", "defaultTopic"));
  out.default_queue_nums = r.int32(name("d", "defaultTopicQueueNums"));
  out.queue_id = r.int32(name("e", "queueId"));
  out.sys_flag = r.int32(name("f", "sysFlag"));
  out.born_timestamp = r.int64(name("g", "bornTimestamp"));
  out.flag = r.int32(name("h", "flag"));
  out.properties = r.text(name("i", "properties"), false);
  out.reconsume_times = r.int32(name("j", "reconsumeTimes"), false, 0);
  out.max_reconsume_times = r.int32(name("l", "maxReconsumeTimes"), false,
                                    out.max_reconsume_times);
  out.batch = cmd.code == request_code::send_batch_message
              || r.boolean(name("m", "batch"));
  out.body = cmd.body;
  return r.done(err);
}

remoting_command send_response(const remoting_command& req,
                               const send_result& res) {
  int32_t code = response_code::success;
  switch (static_cast<send_status>(res.status)) {
    case send_status::flush_disk_timeout:
      code = response_code::flush_disk_timeout;
      break;
    case send_status::flush_slave_timeout:
      code = response_code::flush_slave_timeout;
      break;
    case send_status::slave_not_available:
      code = response_code::slave_not_available;
      break;
    default:
      break;
  }
  auto out = make_response(req, code);
  out.ext_fields["msgId"] = res.offset_msg_id;
  out.ext_fields["queueId"] = std::to_string(res.queue_id);
  out.ext_fields["queueOffset"] = std::to_string(res.queue_offset);
  // A batch's messages each have their own UNIQ_KEY; RocketMQ's broker
  // sends none for it.
  if (!res.msg_id.empty() && res.msg_id.find(',') == std::string::npos)
    out.ext_fields["transactionId"] = res.msg_id;
  // SendMessageProcessor adds these to every send answer: the broker's
  // BrokerConfig.regionId and traceOn, whose defaults are ours (we have no
  // regions and never switch tracing off). A Java producer copies both
  // into its SendResult (MQClientAPIImpl.processSendResponse).
  out.ext_fields["MSG_REGION"] = "DefaultRegion";
  out.ext_fields["TRACE_ON"] = "true";
  return out;
}

bool decode_pull(const remoting_command& cmd, pull_message_request& out,
                 std::string& err) {
  header_reader r{cmd};
  out.consumer_group = r.text("consumerGroup");
  out.topic = r.text("topic");
  out.queue_id = r.int32("queueId");
  out.queue_offset = r.int64("queueOffset");
  out.max_msg_nums = r.int32("maxMsgNums");
  out.sys_flag = r.int32("sysFlag");
  out.commit_offset = r.int64("commitOffset");
  out.suspend_timeout_ms = r.int64("suspendTimeoutMillis");
  out.subscription = r.text("subscription", false);
  if (out.subscription.empty())
    out.subscription = "*";
  out.sub_version = r.int64("subVersion");
  out.max_msg_bytes = r.int32("maxMsgBytes", false, out.max_msg_bytes);
  return r.done(err);
}

namespace {

// The remark RocketMQ's PullMessageProcessor writes: the name of the
// store's GetMessageStatus. Our status is coarser; the offsets tell which
// of the store's names it stands for.
const char* pull_remark(const pull_message_result& res) {
  switch (static_cast<pull_status>(res.status)) {
    case pull_status::found:
      return "FOUND";
    case pull_status::no_new_msg:
      // At the end of a queue; an empty queue has nothing at all.
      return res.max_offset == 0 ? "NO_MESSAGE_IN_QUEUE"
                                 : "OFFSET_OVERFLOW_ONE";
    case pull_status::no_matched_msg:
      return "NO_MATCHED_MESSAGE";
    case pull_status::offset_illegal:
      // Sent on to the end: the request was past it; else to the start.
      return res.next_begin_offset >= res.max_offset ? "OFFSET_OVERFLOW_BADLY"
                                                     : "OFFSET_TOO_SMALL";
  }
  return "UNKNOWN";
}

} // namespace

remoting_command pull_response(const remoting_command& req,
                               pull_message_result res) {
  auto status = static_cast<pull_status>(res.status);
  int32_t code = response_code::success;
  switch (status) {
    case pull_status::found:
      break;
    case pull_status::no_new_msg:
      code = response_code::pull_not_found;
      break;
    case pull_status::no_matched_msg:
      code = response_code::pull_retry_immediately;
      break;
    case pull_status::offset_illegal:
      code = response_code::pull_offset_moved;
      break;
  }
  auto out = make_response(req, code, pull_remark(res));
  out.ext_fields["suggestWhichBrokerId"]
    = std::to_string(res.suggest_which_broker_id);
  out.ext_fields["nextBeginOffset"] = std::to_string(res.next_begin_offset);
  out.ext_fields["minOffset"] = std::to_string(res.min_offset);
  out.ext_fields["maxOffset"] = std::to_string(res.max_offset);
  if (status == pull_status::found)
    out.body = std::move(res.buffer);
  return out;
}

bool decode_query_offset(const remoting_command& cmd, query_offset_request& out,
                         std::string& err) {
  header_reader r{cmd};
  out.consumer_group = r.text("consumerGroup");
  out.topic = r.text("topic");
  out.queue_id = r.int32("queueId");
  out.set_zero_if_not_found = r.boolean("setZeroIfNotFound", true);
  return r.done(err);
}

bool decode_update_offset(const remoting_command& cmd,
                          update_offset_request& out, std::string& err) {
  header_reader r{cmd};
  out.consumer_group = r.text("consumerGroup");
  out.topic = r.text("topic");
  out.queue_id = r.int32("queueId");
  out.commit_offset = r.int64("commitOffset");
  return r.done(err);
}

bool decode_search_offset(const remoting_command& cmd,
                          search_offset_request& out, std::string& err) {
  header_reader r{cmd};
  out.topic = r.text("topic");
  out.queue_id = r.int32("queueId");
  out.timestamp = r.int64("timestamp");
  return r.done(err);
}

bool decode_get_offset(const remoting_command& cmd, get_offset_request& out,
                       std::string& err) {
  header_reader r{cmd};
  out.topic = r.text("topic");
  out.queue_id = r.int32("queueId");
  return r.done(err);
}

remoting_command offset_response(const remoting_command& req, int64_t offset) {
  auto out = make_response(req, response_code::success);
  out.ext_fields["offset"] = std::to_string(offset);
  return out;
}

} // namespace rmq::remoting
