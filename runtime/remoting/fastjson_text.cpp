#include "runtime/remoting/fastjson_text.hpp"

#include <cctype>
#include <stdexcept>

namespace rmq::remoting {

namespace {

// Deep enough for any body RocketMQ writes; a deeper text is refused
// rather than allowed to exhaust the stack.
constexpr int max_depth = 64;

struct reader {
  std::string_view in;
  size_t at = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(why + " at byte " + std::to_string(at));
  }

  void skip_space() {
    while (at < in.size() && std::isspace(static_cast<unsigned char>(in[at])))
      ++at;
  }

  char peek() {
    skip_space();
    if (at >= in.size())
      fail("unexpected end");
    return in[at];
  }

  void expect(char c) {
    if (peek() != c)
      fail(std::string{"expected '"} + c + "'");
    ++at;
  }

  // A string token, decoded by nlohmann (escapes and UTF-8 checked).
  std::string string() {
    expect('"');
    auto begin = at - 1;
    while (at < in.size() && in[at] != '"')
      at += in[at] == '\\' ? 2 : 1;
    if (at >= in.size())
      fail("unterminated string");
    ++at;
    return nlohmann::json::parse(in.substr(begin, at - begin))
      .get<std::string>();
  }

  // A number, true, false or null.
  nlohmann::json scalar() {
    auto begin = at;
    while (at < in.size()
           && (std::isalnum(static_cast<unsigned char>(in[at])) || in[at] == '-'
               || in[at] == '+' || in[at] == '.'))
      ++at;
    if (at == begin)
      fail("unexpected character");
    auto x = nlohmann::json::parse(in.substr(begin, at - begin), nullptr,
                                   false);
    if (x.is_discarded())
      fail("bad literal");
    return x;
  }

  nlohmann::json value(int depth) {
    if (depth > max_depth)
      fail("nested too deep");
    switch (peek()) {
      case '{': {
        ++at;
        auto out = nlohmann::json::object();
        if (peek() == '}') {
          ++at;
          return out;
        }
        for (;;) {
          // fastjson's object keys: their compact JSON text.
          auto key = peek() == '{' ? value(depth + 1).dump() : string();
          expect(':');
          out[key] = value(depth + 1);
          if (peek() == ',') {
            ++at;
            continue;
          }
          expect('}');
          return out;
        }
      }
      case '[': {
        ++at;
        auto out = nlohmann::json::array();
        if (peek() == ']') {
          ++at;
          return out;
        }
        for (;;) {
          out.push_back(value(depth + 1));
          if (peek() == ',') {
            ++at;
            continue;
          }
          expect(']');
          return out;
        }
      }
      case '"':
        return string();
      default:
        return scalar();
    }
  }
};

} // namespace

std::optional<nlohmann::json> read_fastjson(std::string_view text,
                                            std::string& err) {
  reader r{text};
  try {
    auto out = r.value(0);
    r.skip_space();
    if (r.at != text.size())
      r.fail("text after the value");
    return out;
  } catch (const std::exception& e) {
    err = e.what();
    return std::nullopt;
  }
}

} // namespace rmq::remoting
