// Message properties as RocketMQ encodes them (`k\x01v\x02...`,
// MessageDecoder messageProperties2String) and the property names the
// broker reads or writes (MessageConst). Finding and appending one property
// lives beside the record format (runtime/message/message_record.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "caf/expected.hpp"

#include "runtime/message/log_format.hpp"

namespace rmq {

// property_uniq_key, property_tags and property_keys are in
// runtime/message/log_format.hpp.
/// Whether the send waits for the store ("true", RocketMQ
/// PROPERTY_WAIT_STORE_MSG_OK).
constexpr char property_wait[] = "WAIT";
/// Light message queues to dispatch to (RocketMQ 5 LMQ); a path separator
/// in it is illegal.
constexpr char property_inner_multi_dispatch[] = "INNER_MULTI_DISPATCH";
/// The cluster of the broker that stored the message (stamped on send).
constexpr char property_cluster[] = "CLUSTER";
/// Delay level 1..18 of a scheduled message.
constexpr char property_delay[] = "DELAY";
/// A transaction half message ("true").
constexpr char property_tran_msg[] = "TRAN_MSG";
/// The topic a retried or dead message was first sent to (set on send-back).
constexpr char property_retry_topic[] = "RETRY_TOPIC";
/// The id of the first copy of a retried or dead message (set on send-back).
constexpr char property_origin_message_id[] = "ORIGIN_MESSAGE_ID";

/// Returns whether `name` is one RocketMQ reserves for itself
/// (MessageConst.STRING_HASH_SET): programs may not set it as a user
/// property.
bool is_reserved_property(std::string_view name);

using property_list = std::vector<std::pair<std::string, std::string>>;

/// Calls `f(name, value)` for each pair of encoded properties, in order
/// (views into `props`); answers the byte position of the first entry
/// with no name/value separator or an empty name (and stops there), or -1.
/// A trailing separator is fine (RocketMQ writes one after every pair).
template <class F>
int64_t for_each_property(std::string_view props, F&& f) {
  size_t pos = 0;
  while (pos < props.size()) {
    auto end = props.find(property_separator, pos);
    if (end == std::string_view::npos)
      end = props.size();
    auto pair = props.substr(pos, end - pos);
    auto sep = pair.find(name_value_separator);
    if (sep == std::string_view::npos || sep == 0)
      return static_cast<int64_t>(pos);
    f(pair.substr(0, sep), pair.substr(sep + 1));
    pos = end + 1;
  }
  return -1;
}

/// Splits encoded properties (for_each_property); message_illegal if one
/// is malformed.
caf::expected<property_list> decode_properties(std::string_view props);

/// Encodes `xs` in order.
std::string encode_properties(const property_list& xs);

/// Parses a whole property value as a decimal number; false if it is
/// empty, out of range or has anything else.
bool parse_int64(std::string_view text, int64_t& out);

/// Sets `key` to `value`, replacing every earlier value of `key`.
void set_property(std::string& props, std::string_view key,
                  std::string_view value);

} // namespace rmq
