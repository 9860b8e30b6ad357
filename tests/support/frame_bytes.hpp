// Bytes for tests of wire formats: hex spelled out, big-endian ints,
// remoting frames.
#pragma once

#include <cstdint>
#include <string>

namespace rmq::test {

/// Bytes from hex, spaces ignored; `"text"` spans are taken literally.
inline std::string bytes(const std::string& spec) {
  std::string out;
  for (size_t i = 0; i < spec.size();) {
    char c = spec[i];
    if (c == ' ') {
      ++i;
    } else if (c == '"') {
      auto end = spec.find('"', i + 1);
      out += spec.substr(i + 1, end - i - 1);
      i = end + 1;
    } else {
      out.push_back(
        static_cast<char>(std::stoi(spec.substr(i, 2), nullptr, 16)));
      i += 2;
    }
  }
  return out;
}

/// `x` as 4 big-endian bytes.
inline std::string be32(uint32_t x) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>(x >> (24 - 8 * i));
  return out;
}

/// A remoting frame around a JSON `header` and `body`, as a Java client
/// frames it.
inline std::string json_frame(const std::string& header,
                              const std::string& body = {}) {
  return be32(static_cast<uint32_t>(4 + header.size() + body.size()))
         + be32(static_cast<uint32_t>(header.size())) + header + body;
}

} // namespace rmq::test
