#include "runtime/remoting/remoting_command.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <utility>

namespace rmq::remoting {

std::optional<int64_t> parse_long(const std::string& text) {
  if (text.empty())
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  auto v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0')
    return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t>
remoting_command::long_field(const std::string& key) const {
  auto x = field(key);
  return x ? parse_long(*x) : std::nullopt;
}

bool remoting_command::bool_field(const std::string& key, bool fallback) const {
  auto x = field(key);
  if (!x)
    return fallback;
  if (x->size() != 4)
    return false;
  std::string lower;
  for (char c : *x)
    lower.push_back(
      static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "true";
}

remoting_command reply_stub(const remoting_command& request) {
  remoting_command out;
  out.code = request.code;
  out.language = request.language;
  out.version = request.version;
  out.opaque = request.opaque;
  out.flag = request.flag;
  out.serialization = request.serialization;
  return out;
}

remoting_command make_response(const remoting_command& request, int32_t code,
                               std::optional<std::string> remark) {
  remoting_command out;
  out.code = code;
  out.opaque = request.opaque;
  out.flag = command_flag::response;
  out.remark = std::move(remark);
  out.serialization = request.serialization;
  return out;
}

} // namespace rmq::remoting
