#include "runtime/remoting/json_header_fast.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace rmq::remoting::fast_json {

namespace {

bool ascii(const std::string& s) {
  for (unsigned char c : s)
    if (c >= 0x80)
      return false;
  return true;
}

// As nlohmann/json escapes (ensure_ascii off): the short escapes, other
// control characters as \u00xx.
void put_string(std::string& out, const std::string& s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void put_int(std::string& out, const char* key, int64_t x) {
  out.push_back('"');
  out += key;
  out += "\":";
  out += std::to_string(x);
}

struct reader {
  std::string_view in;
  size_t pos = 0;

  void ws() {
    while (pos < in.size()
           && (in[pos] == ' ' || in[pos] == '\t' || in[pos] == '\n'
               || in[pos] == '\r'))
      ++pos;
  }

  bool eat(char c) {
    ws();
    if (pos < in.size() && in[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  bool peek(char c) {
    ws();
    return pos < in.size() && in[pos] == c;
  }

  // A string of ASCII with the short escapes and \u00xx for ASCII.
  bool string(std::string& out) {
    if (!eat('"'))
      return false;
    out.clear();
    while (pos < in.size()) {
      auto c = static_cast<unsigned char>(in[pos++]);
      if (c == '"')
        return true;
      if (c >= 0x80 || c < 0x20)
        return false;
      if (c != '\\') {
        out.push_back(static_cast<char>(c));
        continue;
      }
      if (pos >= in.size())
        return false;
      switch (in[pos++]) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          if (in.size() - pos < 4)
            return false;
          unsigned v = 0;
          for (int i = 0; i < 4; ++i) {
            char h = in[pos++];
            v <<= 4;
            if (h >= '0' && h <= '9')
              v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
              v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
              v |= static_cast<unsigned>(h - 'A' + 10);
            else
              return false;
          }
          if (v >= 0x80)
            return false;
          out.push_back(static_cast<char>(v));
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }

  // An integer of at most 18 digits, as its text.
  bool integer(std::string& out) {
    ws();
    auto start = pos;
    if (pos < in.size() && in[pos] == '-')
      ++pos;
    auto digits = pos;
    while (pos < in.size() && in[pos] >= '0' && in[pos] <= '9')
      ++pos;
    auto n = pos - digits;
    if (n == 0 || n > 18 || (n > 1 && in[digits] == '0'))
      return false;
    // A fraction or an exponent is a float: the full codec's job.
    if (pos < in.size() && (in[pos] == '.' || in[pos] == 'e' || in[pos] == 'E'))
      return false;
    out.assign(in.substr(start, pos - start));
    // The full codec writes -0 back as 0.
    return out != "-0";
  }

  bool word(std::string_view w) {
    ws();
    if (in.substr(pos, w.size()) != w)
      return false;
    pos += w.size();
    return true;
  }

  bool int32(int32_t& out) {
    std::string text;
    if (!integer(text))
      return false;
    auto v = std::stoll(text);
    if (v < INT32_MIN || v > INT32_MAX)
      return false;
    out = static_cast<int32_t>(v);
    return true;
  }

  // A string or null, into `out` (null leaves it).
  bool text_or_null(std::optional<std::string>& out) {
    if (word("null"))
      return true;
    std::string s;
    if (!string(s))
      return false;
    out = std::move(s);
    return true;
  }

  // extFields: string, integer, true, false or null values, each key
  // once (a repeated key is the full codec's: its last value wins).
  bool ext(std::map<std::string, std::string>& out) {
    std::set<std::string> nulls;
    if (word("null"))
      return true;
    if (!eat('{'))
      return false;
    if (eat('}'))
      return true;
    std::string key;
    std::string value;
    do {
      if (!string(key) || !eat(':') || out.count(key) > 0)
        return false;
      ws();
      if (peek('"')) {
        if (!string(value))
          return false;
      } else if (word("true")) {
        value = "true";
      } else if (word("false")) {
        value = "false";
      } else if (word("null")) {
        // Dropped, as the full codec drops it; a repeat still counts.
        nulls.insert(key);
        continue;
      } else if (!integer(value)) {
        return false;
      }
      if (nulls.count(key) > 0)
        return false;
      out.emplace(key, value);
    } while (eat(','));
    return eat('}');
  }
};

} // namespace

bool encode(const remoting_command& cmd, std::string& out) {
  if (!ascii(cmd.language) || (cmd.remark && !ascii(*cmd.remark)))
    return false;
  for (auto& [k, v] : cmd.ext_fields)
    if (!ascii(k) || !ascii(v))
      return false;
  // Keys in the full codec's (sorted) order.
  out.reserve(out.size() + 128 + cmd.ext_fields.size() * 32);
  out.push_back('{');
  put_int(out, "code", cmd.code);
  if (!cmd.ext_fields.empty()) {
    out += ",\"extFields\":{";
    bool first = true;
    for (auto& [k, v] : cmd.ext_fields) {
      if (!first)
        out.push_back(',');
      first = false;
      put_string(out, k);
      out.push_back(':');
      put_string(out, v);
    }
    out.push_back('}');
  }
  out.push_back(',');
  put_int(out, "flag", cmd.flag);
  out += ",\"language\":";
  put_string(out, cmd.language);
  out.push_back(',');
  put_int(out, "opaque", cmd.opaque);
  if (cmd.remark) {
    out += ",\"remark\":";
    put_string(out, *cmd.remark);
  }
  out += ",\"serializeTypeCurrentRPC\":\"JSON\",";
  put_int(out, "version", cmd.version);
  out.push_back('}');
  return true;
}

bool decode(std::string_view text, remoting_command& out) {
  reader r{text};
  remoting_command cmd;
  if (!r.eat('{'))
    return false;
  if (!r.eat('}')) {
    std::string key;
    unsigned seen = 0;
    do {
      if (!r.string(key) || !r.eat(':'))
        return false;
      bool ok = false;
      // A repeated key is the full codec's: its last value wins.
      auto once = [&](unsigned bit) {
        if ((seen & bit) != 0)
          return false;
        seen |= bit;
        return true;
      };
      if (key == "code")
        ok = once(1) && r.int32(cmd.code);
      else if (key == "version")
        ok = once(2) && r.int32(cmd.version);
      else if (key == "opaque")
        ok = once(4) && r.int32(cmd.opaque);
      else if (key == "flag")
        ok = once(8) && r.int32(cmd.flag);
      else if (key == "language" && once(16)) {
        std::optional<std::string> x;
        ok = r.text_or_null(x);
        if (x)
          cmd.language = std::move(*x);
      } else if (key == "remark")
        ok = once(32) && r.text_or_null(cmd.remark);
      else if (key == "serializeTypeCurrentRPC" && once(64)) {
        std::optional<std::string> ignored;
        ok = r.text_or_null(ignored);
      } else if (key == "extFields")
        ok = once(128) && r.ext(cmd.ext_fields);
      if (!ok)
        return false;
    } while (r.eat(','));
    if (!r.eat('}'))
      return false;
  }
  r.ws();
  if (r.pos != text.size())
    return false;
  cmd.serialization = serialize_type::json;
  // Only the header fields: the body is the caller's.
  out.code = cmd.code;
  out.language = std::move(cmd.language);
  out.version = cmd.version;
  out.opaque = cmd.opaque;
  out.flag = cmd.flag;
  out.remark = std::move(cmd.remark);
  out.ext_fields = std::move(cmd.ext_fields);
  out.serialization = serialize_type::json;
  return true;
}

} // namespace rmq::remoting::fast_json
