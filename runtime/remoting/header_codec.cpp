#include "runtime/remoting/header_codec.hpp"

#include <array>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "runtime/message/byte_coding.hpp"
#include "runtime/remoting/json_header_fast.hpp"

namespace rmq::remoting {

namespace {

// LanguageCode.java, in code order.
constexpr std::array<const char*, 14> language_names{
  "JAVA",  "CPP",  "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY",
  "OTHER", "HTTP", "GO",     "PHP",    "OMS",    "RUST",   "NODE_JS"};

constexpr uint8_t other_language = 7;

// What Java would make of a JSON value where it expects a string: the
// value's text (fastjson converts numbers and booleans by the field's
// type).
std::string text_of(const nlohmann::json& v) {
  if (v.is_string())
    return v.get<std::string>();
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// An int32 header field, given as a number or as a numeric string.
bool int_field(const nlohmann::json& obj, const char* key, int32_t& out,
               std::string& err) {
  auto i = obj.find(key);
  if (i == obj.end() || i->is_null())
    return true;
  if (i->is_number_integer()) {
    auto x = i->get<int64_t>();
    if (x >= INT32_MIN && x <= INT32_MAX) {
      out = static_cast<int32_t>(x);
      return true;
    }
  } else if (i->is_string()) {
    auto x = parse_long(i->get<std::string>());
    if (x && *x >= INT32_MIN && *x <= INT32_MAX) {
      out = static_cast<int32_t>(*x);
      return true;
    }
  }
  err = std::string{"header field "} + key + " is no int32: " + text_of(*i);
  return false;
}

// Bounds-checked reads of a binary header.
struct byte_reader {
  std::string_view in;
  size_t pos = 0;

  bool has(size_t n) const {
    return in.size() - pos >= n;
  }

  uint8_t u8() {
    return static_cast<uint8_t>(in[pos++]);
  }

  uint16_t u16() {
    auto x = get_be16(in.data() + pos);
    pos += 2;
    return x;
  }

  uint32_t u32() {
    auto x = get_be32(in.data() + pos);
    pos += 4;
    return x;
  }

  std::string bytes(size_t n) {
    std::string out{in.substr(pos, n)};
    pos += n;
    return out;
  }
};

void append_be16(std::string& out, uint16_t x) {
  char b[2];
  put_be16(b, x);
  out.append(b, 2);
}

void append_be32(std::string& out, uint32_t x) {
  char b[4];
  put_be32(b, x);
  out.append(b, 4);
}

} // namespace

std::string language_name(uint8_t code) {
  return code < language_names.size() ? language_names[code]
                                      : language_names[other_language];
}

uint8_t language_code(const std::string& name) {
  for (size_t i = 0; i < language_names.size(); ++i)
    if (name == language_names[i])
      return static_cast<uint8_t>(i);
  return other_language;
}

std::string encode_json_header(const remoting_command& cmd) {
  std::string out;
  if (fast_json::encode(cmd, out))
    return out;
  return encode_json_header_full(cmd);
}

bool decode_json_header(std::string_view text, remoting_command& out,
                        std::string& err) {
  return fast_json::decode(text, out)
         || decode_json_header_full(text, out, err);
}

std::string encode_json_header_full(const remoting_command& cmd) {
  // nlohmann's object keeps keys sorted, as fastjson's MapSortField does.
  nlohmann::json j;
  j["code"] = cmd.code;
  if (!cmd.ext_fields.empty())
    j["extFields"] = cmd.ext_fields;
  j["flag"] = cmd.flag;
  j["language"] = cmd.language;
  j["opaque"] = cmd.opaque;
  if (cmd.remark)
    j["remark"] = *cmd.remark;
  j["serializeTypeCurrentRPC"] = "JSON";
  j["version"] = cmd.version;
  // Invalid UTF-8 (bytes a Java String cannot hold) is replaced rather
  // than thrown on.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string encode_binary_header(const remoting_command& cmd) {
  std::string out;
  append_be16(out, static_cast<uint16_t>(cmd.code));
  out.push_back(static_cast<char>(language_code(cmd.language)));
  append_be16(out, static_cast<uint16_t>(cmd.version));
  append_be32(out, static_cast<uint32_t>(cmd.opaque));
  append_be32(out, static_cast<uint32_t>(cmd.flag));
  auto remark = cmd.remark ? *cmd.remark : std::string{};
  append_be32(out, static_cast<uint32_t>(remark.size()));
  out += remark;
  std::string ext;
  for (auto& [k, v] : cmd.ext_fields) {
    append_be16(ext, static_cast<uint16_t>(k.size()));
    ext += k;
    append_be32(ext, static_cast<uint32_t>(v.size()));
    ext += v;
  }
  append_be32(out, static_cast<uint32_t>(ext.size()));
  out += ext;
  return out;
}

bool decode_json_header_full(std::string_view text, remoting_command& out,
                             std::string& err) {
  auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    err = "header is no JSON object";
    return false;
  }
  if (!int_field(j, "code", out.code, err)
      || !int_field(j, "version", out.version, err)
      || !int_field(j, "opaque", out.opaque, err)
      || !int_field(j, "flag", out.flag, err))
    return false;
  if (auto i = j.find("language"); i != j.end() && !i->is_null())
    out.language = text_of(*i);
  if (auto i = j.find("remark"); i != j.end() && !i->is_null())
    out.remark = text_of(*i);
  if (auto i = j.find("extFields"); i != j.end() && !i->is_null()) {
    if (!i->is_object()) {
      err = "header field extFields is no object";
      return false;
    }
    for (auto& [k, v] : i->items())
      if (!v.is_null())
        out.ext_fields[k] = text_of(v);
  }
  out.serialization = serialize_type::json;
  return true;
}

bool decode_binary_header(std::string_view bytes, remoting_command& out,
                          std::string& err) {
  byte_reader r{bytes};
  // code, language, version, opaque, flag, remark length.
  if (!r.has(2 + 1 + 2 + 4 + 4 + 4)) {
    err = "binary header of " + std::to_string(bytes.size())
          + " bytes is shorter than its fixed fields";
    return false;
  }
  out.code = static_cast<int16_t>(r.u16());
  out.language = language_name(r.u8());
  out.version = static_cast<int16_t>(r.u16());
  out.opaque = static_cast<int32_t>(r.u32());
  out.flag = static_cast<int32_t>(r.u32());
  auto remark_len = r.u32();
  if (!r.has(remark_len) || !r.has(size_t{remark_len} + 4)) {
    err = "binary header's remark length " + std::to_string(remark_len)
          + " runs past the header";
    return false;
  }
  if (remark_len > 0)
    out.remark = r.bytes(remark_len);
  auto ext_len = r.u32();
  if (!r.has(ext_len)) {
    err = "binary header's extFields length " + std::to_string(ext_len)
          + " runs past the header";
    return false;
  }
  byte_reader ext{r.in.substr(r.pos, ext_len)};
  while (ext.pos < ext.in.size()) {
    if (!ext.has(2)) {
      err = "binary header's extFields end inside a key length";
      return false;
    }
    auto klen = ext.u16();
    if (!ext.has(size_t{klen} + 4)) {
      err = "binary header's extFields key runs past the header";
      return false;
    }
    auto key = ext.bytes(klen);
    auto vlen = ext.u32();
    if (!ext.has(vlen)) {
      err = "binary header's extFields value of " + key
            + " runs past the header";
      return false;
    }
    out.ext_fields[key] = ext.bytes(vlen);
  }
  out.serialization = serialize_type::rocketmq;
  return true;
}

} // namespace rmq::remoting
