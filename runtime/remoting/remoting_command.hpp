// One RocketMQ "remoting" command, request or response, as it travels in a
// frame: the header fields both header serializations carry, the custom
// header's extFields, and the body (docs/remoting.md, "Frames").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace rmq::remoting {

/// The header's serialization: the high byte of a frame's second int32.
enum class serialize_type : uint8_t { json = 0, rocketmq = 1 };

/// `flag` bits.
namespace command_flag {
constexpr int32_t response = 1;
constexpr int32_t oneway = 2;
} // namespace command_flag

/// Protocol version we write in our commands: RocketMQ's MQVersion
/// ordinal of V4_9_4, the 4.x remoting feature set we serve
/// (docs/remoting.md, "Versions").
constexpr int32_t our_version = 401;

/// The ordinal from which RocketMQ NameServers write routes as standard
/// JSON (V4_9_4); ours always do.
constexpr int32_t version_v4_9_4 = 401;

struct remoting_command {
  int32_t code = 0;
  /// The sender's LanguageCode name ("JAVA", "CPP", ...). Unknown names
  /// are kept as they came; they mean nothing to a server.
  std::string language = "CPP";
  int32_t version = our_version;
  int32_t opaque = 0;
  int32_t flag = 0;
  /// Absent in the header when not set (Java omits a null remark).
  std::optional<std::string> remark;
  /// The custom header, every value a string as Java writes it.
  std::map<std::string, std::string> ext_fields;
  std::string body;
  /// How the header came or is to be written.
  serialize_type serialization = serialize_type::json;

  bool is_response() const {
    return (flag & command_flag::response) != 0;
  }

  bool is_oneway() const {
    return (flag & command_flag::oneway) != 0;
  }

  /// The value of extFields key `key`, if present.
  const std::string* field(const std::string& key) const {
    auto i = ext_fields.find(key);
    return i == ext_fields.end() ? nullptr : &i->second;
  }

  /// extFields `key` as a Java long: nullopt when absent or no number.
  std::optional<int64_t> long_field(const std::string& key) const;

  /// extFields `key` as Java's Boolean.parseBoolean reads it ("true" in
  /// any case); `fallback` when absent.
  bool bool_field(const std::string& key, bool fallback = false) const;
};

/// `text` as Java's Long.parseLong reads it (decimal, optional sign, the
/// whole text); nullopt when it is no such number.
std::optional<int64_t> parse_long(const std::string& text);

/// `request` without its extFields, remark and body: all an answer needs
/// of it (make_response), and cheap to keep while the answer is made.
remoting_command reply_stub(const remoting_command& request);

/// The response to `request` with `code`: same opaque and serialization,
/// the response flag set.
remoting_command make_response(const remoting_command& request, int32_t code,
                               std::optional<std::string> remark = {});

} // namespace rmq::remoting
