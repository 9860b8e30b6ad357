#include "runtime/common/validators.hpp"

#include <cctype>

#include "messages/common/errors.hpp"

namespace rmq {

namespace {

// ASCII ranges, not std::isalnum: RocketMQ's pattern is ASCII whatever the
// locale, and the call was 2 % of a batching producer's samples (every
// message of a batch names its topic).
bool is_name_char(char c, bool allow_dot) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c >= '0' && c <= '9') || c == '%' || c == '|' || c == '_'
         || c == '-' || (allow_dot && c == '.');
}

caf::error check_name(const std::string& name, const char* what, size_t max_len,
                      bool allow_dot) {
  if (name.empty())
    return make_error(errc::invalid_parameter, std::string{what} + " is empty");
  if (name.size() > max_len)
    return make_error(errc::invalid_parameter,
                      std::string{what} + " is longer than "
                        + std::to_string(max_len) + " characters");
  for (auto c : name)
    if (!is_name_char(c, allow_dot))
      return make_error(errc::invalid_parameter,
                        std::string{what} + " '" + name
                          + "' contains illegal characters, allowed: "
                          + (allow_dot ? "[%|a-zA-Z0-9_.-]"
                                       : "[%|a-zA-Z0-9_-]"));
  return {};
}

} // namespace

caf::error check_topic(const std::string& topic) {
  return check_name(topic, "topic", max_topic_length, false);
}

caf::error check_registered_topic(const std::string& topic) {
  if (topic.empty())
    return make_error(errc::invalid_parameter, "topic is empty");
  if (topic.size() > max_registered_topic_length)
    return make_error(errc::invalid_parameter,
                      "topic is longer than "
                        + std::to_string(max_registered_topic_length)
                        + " characters");
  for (auto c : topic)
    if (std::iscntrl(static_cast<unsigned char>(c)))
      return make_error(errc::invalid_parameter,
                        "topic contains control characters");
  return {};
}

caf::error check_group(const std::string& group) {
  return check_name(group, "group", max_group_length, false);
}

caf::error check_broker_name(const std::string& name, const char* what) {
  return check_name(name, what, max_broker_name_length, true);
}

caf::error check_address(const std::string& addr, const char* what) {
  auto colon = addr.rfind(':');
  auto bad = [&](const char* why) {
    return make_error(errc::invalid_parameter,
                      std::string{what} + " '" + addr + "' " + why);
  };
  if (addr.empty())
    return make_error(errc::invalid_parameter, std::string{what} + " is empty");
  if (colon == std::string::npos || colon == 0)
    return bad("is not host:port");
  auto port = addr.substr(colon + 1);
  if (port.empty() || port.size() > 5)
    return bad("has no valid port");
  for (auto c : port)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return bad("has no valid port");
  auto num = std::stoi(port);
  if (num < 1 || num > 65535)
    return bad("has a port outside 1..65535");
  for (auto c : addr)
    if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ')
      return bad("contains spaces or control characters");
  return {};
}

caf::error check_kv_name(const std::string& name, const char* what) {
  if (name.empty())
    return make_error(errc::invalid_parameter, std::string{what} + " is empty");
  if (name.size() > 255)
    return make_error(errc::invalid_parameter,
                      std::string{what} + " is longer than 255 characters");
  for (auto c : name)
    if (std::iscntrl(static_cast<unsigned char>(c)))
      return make_error(errc::invalid_parameter,
                        std::string{what} + " contains control characters");
  return {};
}

caf::error check_kv_value(const std::string& value) {
  if (value.size() > max_kv_value_size)
    return make_error(errc::invalid_parameter,
                      "value has " + std::to_string(value.size())
                        + " bytes, more than the "
                        + std::to_string(max_kv_value_size) + " allowed");
  return {};
}

} // namespace rmq
