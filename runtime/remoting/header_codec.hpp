// The two serializations of a remoting header (docs/remoting.md,
// "Frames"): RocketMQ's JSON one (RemotingSerializable, written as
// fastjson writes it: keys sorted, null remark left out, every extFields
// value a string) and its binary one (RocketMQSerializable). Decoding is
// lenient where Java clients are: extFields numbers and booleans are taken
// as their text, unknown keys are kept, unknown languages too.
#pragma once

#include <string>
#include <string_view>

#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// The JSON header of `cmd` (body excluded).
std::string encode_json_header(const remoting_command& cmd);

/// The JSON header through nlohmann/json alone, without the fast path
/// (json_header_fast.hpp) that the two above take first; for tests that
/// hold the two against each other.
std::string encode_json_header_full(const remoting_command& cmd);
bool decode_json_header_full(std::string_view text, remoting_command& out,
                             std::string& err);

/// The binary header of `cmd` (body excluded).
std::string encode_binary_header(const remoting_command& cmd);

/// Fills the header fields of `out` from a JSON header; false and `err`
/// set when it is no JSON object or a field has the wrong type.
bool decode_json_header(std::string_view text, remoting_command& out,
                        std::string& err);

/// Fills the header fields of `out` from a binary header; false and `err`
/// set when a length runs past the header's end.
bool decode_binary_header(std::string_view bytes, remoting_command& out,
                          std::string& err);

/// RocketMQ's LanguageCode of binary headers: the name for a code (OTHER
/// when unknown) and the code for a name (OTHER's when unknown).
std::string language_name(uint8_t code);
uint8_t language_code(const std::string& name);

} // namespace rmq::remoting
