#include "runtime/message/reply_message.hpp"

#include <charconv>

#include "messages/common/errors.hpp"
#include "runtime/message/body_compression.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"

namespace rmq {

namespace {

std::string lookup(const std::map<std::string, std::string>& xs,
                   const char* key) {
  auto i = xs.find(key);
  return i == xs.end() ? std::string{} : i->second;
}

int32_t to_int(const std::string& x) {
  int32_t result = 0;
  auto [ptr, ec] = std::from_chars(x.data(), x.data() + x.size(), result);
  return ec == std::errc{} && ptr == x.data() + x.size() ? result : 0;
}

} // namespace

std::string reply_topic(std::string_view cluster) {
  return std::string{cluster} + "_REPLY_TOPIC";
}

bool is_reply_message(const client_message& msg) {
  auto i = msg.properties.find(property_message_type);
  return i != msg.properties.end() && i->second == reply_message_flag;
}

bool is_request_reply_property(std::string_view name) {
  return name == property_correlation_id || name == property_reply_to_client
         || name == property_message_ttl || name == property_message_type;
}

caf::expected<client_message>
create_reply_message(const received_message& request, std::string body) {
  // A request arrives with them among the reserved properties; a program
  // that built the message by hand may have put them with its own.
  auto get = [&](const char* key) {
    auto x = lookup(request.system_properties, key);
    return x.empty() ? lookup(request.properties, key) : x;
  };
  auto cluster = get(property_cluster);
  auto correlation_id = get(property_correlation_id);
  auto reply_to = get(property_reply_to_client);
  std::string missing;
  for (auto [name, value] :
       {std::pair{property_correlation_id, &correlation_id},
        std::pair{property_reply_to_client, &reply_to},
        std::pair{property_cluster, &cluster}})
    if (value->empty())
      missing += std::string{missing.empty() ? "" : ", "} + name;
  if (!missing.empty())
    return make_error(errc::message_illegal,
                      "create reply message fail: message " + request.msg_id
                        + " on " + request.topic + " is not a request (no "
                        + missing + " property)");
  client_message reply;
  reply.topic = reply_topic(cluster);
  reply.body = std::move(body);
  reply.properties[property_message_type] = reply_message_flag;
  reply.properties[property_correlation_id] = correlation_id;
  reply.properties[property_reply_to_client] = reply_to;
  if (auto ttl = get(property_message_ttl); !ttl.empty())
    reply.properties[property_message_ttl] = ttl;
  return reply;
}

caf::expected<received_message>
to_received_message(const push_reply_message& push, size_t max_body) {
  received_message msg;
  msg.topic = push.topic;
  msg.queue_id = push.queue_id;
  msg.reconsume_times = push.reconsume_times;
  msg.born_timestamp = push.born_timestamp;
  msg.store_timestamp = push.store_timestamp;
  msg.born_host = push.born_host;
  msg.store_host = push.store_host;
  msg.flag = push.flag;
  msg.sys_flag = push.sys_flag;
  msg.stored_size = static_cast<int32_t>(push.body.size());
  if ((push.sys_flag & sys_flag::compressed) != 0) {
    auto body = decompress_body(push.body, max_body);
    if (!body)
      return make_error(static_cast<errc>(body.error().code()),
                        "compressed reply body: " + error_detail(body.error()));
    msg.body = std::move(*body);
  } else {
    msg.body = push.body;
  }
  auto props = decode_properties(push.properties);
  if (!props)
    return make_error(errc::corrupt_data,
                      "reply properties: " + error_detail(props.error()));
  for (auto& [key, value] : *props) {
    if (is_reserved_property(key))
      msg.system_properties[key] = value;
    else
      msg.properties[key] = value;
  }
  msg.tags = lookup(msg.system_properties, property_tags);
  msg.keys = lookup(msg.system_properties, property_keys);
  msg.delay_level = to_int(lookup(msg.system_properties, property_delay));
  msg.msg_id = lookup(msg.system_properties, property_uniq_key);
  return msg;
}

} // namespace rmq
