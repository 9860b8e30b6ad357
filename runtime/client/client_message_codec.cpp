#include "runtime/client/client_message_codec.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "messages/common/errors.hpp"
#include "runtime/client/received_message.hpp"
#include "runtime/message/body_compression.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "runtime/message/send_checks.hpp"
#include "runtime/message/timer_message.hpp"

namespace rmq {

namespace {

constexpr std::string_view retry_topic_prefix = "%RETRY%";

/// The producer group of a half message (RocketMQ PROPERTY_PRODUCER_GROUP;
/// the broker checks back with a producer of it).
constexpr char pgroup_property[] = "PGROUP";

/// Length of the UNIQ_KEY the producer makes (MessageClientIDSetter: 16
/// bytes in hex), for sizing properties before the key exists.
constexpr size_t uniq_key_length = 32;

caf::error illegal(std::string what) {
  return make_error(errc::message_illegal, std::move(what));
}

bool is_blank(std::string_view x) {
  return std::all_of(x.begin(), x.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
  });
}

bool has_separator(std::string_view x) {
  return x.find(name_value_separator) != std::string_view::npos
         || x.find(property_separator) != std::string_view::npos;
}

/// What append_property adds for `key` and `value`: both separators.
size_t property_size(std::string_view key, size_t value_size) {
  return key.size() + value_size + 2;
}

/// The size build_properties' result has, without building it (the check
/// runs on every message).
size_t properties_size(const client_message& msg, size_t uniq_key_size) {
  size_t n = 0;
  if (!msg.tags.empty())
    n += property_size(property_tags, msg.tags.size());
  if (!msg.keys.empty())
    n += property_size(property_keys, msg.keys.size());
  if (msg.delay_level > 0)
    n += property_size(property_delay, std::to_string(msg.delay_level).size());
  if (msg.deliver_time_ms > 0)
    n += property_size(property_timer_deliver_ms,
                       std::to_string(msg.deliver_time_ms).size());
  if (msg.delay_ms > 0)
    n += property_size(property_timer_delay_ms,
                       std::to_string(msg.delay_ms).size());
  if (uniq_key_size > 0)
    n += property_size(property_uniq_key, uniq_key_size);
  n += property_size(property_wait, 4);
  for (auto& [k, v] : msg.properties)
    n += property_size(k, v.size());
  return n;
}

/// TAGS, KEYS, DELAY, TIMER_DELIVER_MS, TIMER_DELAY_MS, UNIQ_KEY, WAIT, then the user's own, as RocketMQ's
/// Message carries them (its order is a hash map's; ours is fixed).
void append_properties(std::string& props, const client_message& msg,
                       std::string_view uniq_key) {
  if (!msg.tags.empty())
    append_property(props, property_tags, msg.tags);
  if (!msg.keys.empty())
    append_property(props, property_keys, msg.keys);
  if (msg.delay_level > 0)
    append_property(props, property_delay, std::to_string(msg.delay_level));
  if (msg.deliver_time_ms > 0)
    append_property(props, property_timer_deliver_ms,
                    std::to_string(msg.deliver_time_ms));
  if (msg.delay_ms > 0)
    append_property(props, property_timer_delay_ms,
                    std::to_string(msg.delay_ms));
  if (!uniq_key.empty())
    append_property(props, property_uniq_key, uniq_key);
  append_property(props, property_wait, "true");
  for (auto& [k, v] : msg.properties)
    append_property(props, k, v);
}

std::string build_properties(const client_message& msg,
                             std::string_view uniq_key) {
  std::string props;
  props.reserve(properties_size(msg, uniq_key.size()));
  append_properties(props, msg, uniq_key);
  return props;
}

caf::error check_user_properties(const client_message& msg) {
  for (auto& [k, v] : msg.properties) {
    // RocketMQ putUserProperty: neither may be blank.
    if (is_blank(k) || is_blank(v))
      return illegal("the name or value of property '" + k
                     + "' can not be blank");
    if (has_separator(k) || has_separator(v))
      return illegal("property '" + k
                     + "' contains a property separator (\\x01 or \\x02)");
    // The request-reply properties travel in the messages a producer's
    // request and create_reply_message make (runtime/message/reply_message.hpp).
    if (is_reserved_property(k) && !is_request_reply_property(k))
      return illegal("the property '" + k + "' is used by the system");
    if (k == property_inner_multi_dispatch && v.find('/') != std::string::npos)
      return illegal(std::string{property_inner_multi_dispatch} + " " + v
                     + " can not contain /");
  }
  return caf::none;
}

// RocketMQ 5's Message#setDeliverTimeMs / setDelayTimeMs: a time is not
// negative, and one message takes one kind of delay (the broker would
// silently drop the timer for a delay level).
caf::error check_timer_fields(const client_message& msg) {
  if (msg.deliver_time_ms < 0)
    return illegal("deliver time " + std::to_string(msg.deliver_time_ms)
                   + " ms is negative");
  if (msg.delay_ms < 0)
    return illegal("delay " + std::to_string(msg.delay_ms) + " ms is negative");
  if (msg.deliver_time_ms > 0 && msg.delay_ms > 0)
    return illegal("a deliver time and a delay can not be set together");
  if ((msg.deliver_time_ms > 0 || msg.delay_ms > 0) && msg.delay_level > 0)
    return illegal("a delay level can not be set together with a deliver "
                   "time or delay");
  return caf::none;
}

} // namespace

caf::error check_client_message(const client_message& msg,
                                const message_codec_options& opts,
                                bool topic_checked) {
  // Validators.checkMessage answers MQClientException for the topic; one
  // code for every client-side refusal keeps callers simple.
  if (!topic_checked)
    if (auto err = check_send_topic(msg.topic))
      return illegal("topic: " + error_detail(err));
  if (auto err = check_body(msg.body, opts.max_message_size))
    return err;
  if (msg.delay_level < 0 || msg.delay_level > default_max_delay_level)
    return illegal("delay level " + std::to_string(msg.delay_level)
                   + " is not in 0.."
                   + std::to_string(default_max_delay_level));
  if (auto err = check_timer_fields(msg))
    return err;
  if (has_separator(msg.tags))
    return illegal("the tags contain a property separator (\\x01 or \\x02)");
  if (has_separator(msg.keys))
    return illegal("the keys contain a property separator (\\x01 or \\x02)");
  if (auto err = check_user_properties(msg))
    return err;
  auto size = properties_size(msg, uniq_key_length);
  if (size > max_properties_size)
    return illegal("properties of " + std::to_string(size) + " bytes exceed "
                   + std::to_string(max_properties_size));
  return caf::none;
}

send_message_request
make_send_request(const client_message& msg, const std::string& uniq_key,
                  int64_t born_ms, const message_codec_options& opts) {
  send_message_request req;
  req.producer_group = opts.producer_group;
  req.topic = msg.topic;
  req.default_topic = opts.default_topic;
  req.default_queue_nums = opts.default_queue_nums;
  req.born_timestamp = born_ms;
  req.born_ip = opts.born_ip;
  req.born_port = opts.born_port;
  req.flag = msg.flag;
  req.properties = build_properties(msg, uniq_key);
  // RocketMQ tryToCompressMessage: at least compressMsgBodyOverHowmuch.
  // Not past what a consumer inflates (default_max_body): with a raised
  // max_message_size such a body would be stored compressed and then
  // refused by every consumer (docs/reliability.md, "Undecodable
  // messages"); sent as it is, the broker's own limit judges it.
  if (msg.body.size() >= opts.compress_over
      && msg.body.size() <= default_max_body) {
    req.body = compress_body(msg.body, opts.compress_level);
    req.sys_flag |= sys_flag::compressed;
  } else {
    req.body = msg.body;
  }
  return req;
}

caf::expected<send_message_request>
make_batch_request(const std::vector<client_message>& msgs,
                   const std::vector<std::string>& uniq_keys, int64_t born_ms,
                   const message_codec_options& opts, bool checked) {
  if (msgs.empty())
    return illegal("the batch is empty");
  if (uniq_keys.size() != msgs.size())
    return make_error(errc::invalid_parameter,
                      std::to_string(uniq_keys.size()) + " ids for "
                        + std::to_string(msgs.size()) + " batch messages");
  auto& topic = msgs.front().topic;
  // The entries are written straight into the body (no copy of a body or
  // properties per message), sized up front.
  size_t total = 0;
  for (size_t i = 0; i < msgs.size(); ++i)
    total += batch_entry_overhead + msgs[i].body.size()
             + properties_size(msgs[i], uniq_keys[i].size());
  std::string body;
  body.reserve(total);
  std::string props; // reused: one allocation for the whole batch
  for (size_t i = 0; i < msgs.size(); ++i) {
    auto& msg = msgs[i];
    auto at = [i] { return "batch message " + std::to_string(i) + ": "; };
    // RocketMQ DefaultMQProducer.batch: checked one by one, one topic, no
    // delay, no retry topic.
    if (auto err = checked ? caf::error{} : check_client_message(msg, opts))
      return illegal(at() + error_detail(err));
    if (msg.topic != topic)
      return illegal(at() + "topic " + msg.topic
                     + " differs from the batch's topic " + topic);
    if (msg.delay_level > 0)
      return illegal(at() + "delay levels are not supported for batching");
    if (msg.deliver_time_ms != 0 || msg.delay_ms != 0)
      return illegal(at() + "timed messages are not supported for batching");
    if (msg.topic.compare(0, retry_topic_prefix.size(), retry_topic_prefix)
        == 0)
      return illegal(at() + "retry topics are not supported for batching");
    // Batches are not compressed (RocketMQ tryToCompressMessage).
    props.clear();
    append_properties(props, msg, uniq_keys[i]);
    if (auto err = append_batch_entry(body, msg.flag, msg.body, props))
      return illegal(at() + error_detail(err));
  }
  if (body.size() > opts.max_message_size)
    return illegal("the batch body size " + std::to_string(body.size())
                   + " exceeds the maximum "
                   + std::to_string(opts.max_message_size));
  send_message_request req;
  req.producer_group = opts.producer_group;
  req.topic = topic;
  req.default_topic = opts.default_topic;
  req.default_queue_nums = opts.default_queue_nums;
  req.born_timestamp = born_ms;
  req.born_ip = opts.born_ip;
  req.born_port = opts.born_port;
  // As MessageBatch: the batch itself carries only WAIT.
  append_property(req.properties, property_wait, "true");
  req.batch = true;
  req.body = std::move(body);
  return req;
}

void mark_transaction_half(send_message_request& req,
                           const std::string& group) {
  append_property(req.properties, property_tran_msg, "true");
  append_property(req.properties, pgroup_property, group);
  req.sys_flag |= sys_flag::transaction_prepared;
}

client_send_result to_client_result(const send_result& res,
                                    const message_queue& queue) {
  client_send_result result;
  result.status = res.status;
  result.msg_id = res.msg_id;
  result.offset_msg_id = res.offset_msg_id;
  result.queue = queue;
  result.queue.queue_id = res.queue_id;
  result.queue_offset = res.queue_offset;
  result.entries = entries_of(res);
  return result;
}

} // namespace rmq
