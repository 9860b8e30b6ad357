#include "runtime/message/message_id.hpp"

#include <cstring>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"

namespace rmq {

namespace {

constexpr char hex_digits[] = "0123456789ABCDEF";

// The two hex digits of every byte value.
struct hex_pairs {
  char digits[256][2];
  constexpr hex_pairs() : digits() {
    for (int b = 0; b < 256; ++b) {
      digits[b][0] = hex_digits[b >> 4];
      digits[b][1] = hex_digits[b & 0xF];
    }
  }
};

constexpr hex_pairs byte_hex;

// Writes 2 * n hex digits, a byte at a time and in place (the batch
// answer makes two ids per message).
void write_hex(char* out, const char* raw, size_t n) {
  for (size_t i = 0; i < n; ++i)
    memcpy(out + 2 * i, byte_hex.digits[static_cast<uint8_t>(raw[i])], 2);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

// Decodes 32 hex characters into 16 bytes.
caf::error decode_hex16(std::string_view id, const char* what, char* out) {
  if (id.size() != 32)
    return make_error(errc::invalid_parameter,
                      std::string{what} + " must be 32 hex characters, got "
                        + std::to_string(id.size()));
  for (size_t i = 0; i < 16; ++i) {
    auto hi = hex_value(id[2 * i]);
    auto lo = hex_value(id[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return make_error(errc::invalid_parameter,
                        std::string{what} + " has a non-hex character at "
                          + std::to_string(hi < 0 ? 2 * i : 2 * i + 1));
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  return caf::none;
}

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian,
// UTC), so month boundaries need no time zone database.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  auto era = (y >= 0 ? y : y - 399) / 400;
  auto yoe = static_cast<unsigned>(y - era * 400);
  auto doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  auto doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m) {
  z += 719468;
  auto era = (z >= 0 ? z : z - 146096) / 146097;
  auto doe = static_cast<unsigned>(z - era * 146097);
  auto yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  auto doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  auto mp = (5 * doy + 2) / 153;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

constexpr int64_t ms_per_day = 86'400'000;

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

} // namespace

void write_offset_msg_id(char* out, uint32_t ip, uint32_t port,
                         int64_t offset) {
  char raw[16];
  put_be32(raw, ip);
  put_be32(raw + 4, port);
  put_be64(raw + 8, static_cast<uint64_t>(offset));
  write_hex(out, raw, 16);
}

std::string encode_offset_msg_id(uint32_t ip, uint32_t port, int64_t offset) {
  std::string result(msg_id_size, '0');
  write_offset_msg_id(result.data(), ip, port, offset);
  return result;
}

caf::expected<offset_msg_id> decode_offset_msg_id(std::string_view id) {
  char raw[16];
  if (auto err = decode_hex16(id, "offsetMsgId", raw))
    return err;
  return offset_msg_id{get_be32(raw), get_be32(raw + 4),
                       static_cast<int64_t>(get_be64(raw + 8))};
}

caf::expected<uniq_key_fields> decode_uniq_key(std::string_view id) {
  char raw[16];
  if (auto err = decode_hex16(id, "UNIQ_KEY", raw))
    return err;
  uniq_key_fields x;
  x.ip = get_be32(raw);
  x.pid = get_be16(raw + 4);
  x.hash = static_cast<int32_t>(get_be32(raw + 6));
  x.month_ms = get_be32(raw + 10);
  x.counter = get_be16(raw + 14);
  return x;
}

int64_t month_start_ms(int64_t ms) {
  int64_t y;
  unsigned m;
  civil_from_days(floor_div(ms, ms_per_day), y, m);
  return days_from_civil(y, m, 1) * ms_per_day;
}

int64_t next_month_start_ms(int64_t ms) {
  int64_t y;
  unsigned m;
  civil_from_days(floor_div(ms, ms_per_day), y, m);
  if (m == 12)
    return days_from_civil(y + 1, 1, 1) * ms_per_day;
  return days_from_civil(y, m + 1, 1) * ms_per_day;
}

int64_t uniq_key_time(const uniq_key_fields& id, int64_t now_ms) {
  auto start = month_start_ms(now_ms);
  if (start + id.month_ms >= now_ms)
    start = month_start_ms(start - 1);
  return start + id.month_ms;
}

std::string ipv4_to_string(uint32_t ip) {
  return std::to_string(ip >> 24) + '.' + std::to_string((ip >> 16) & 0xFF)
         + '.' + std::to_string((ip >> 8) & 0xFF) + '.'
         + std::to_string(ip & 0xFF);
}

uniq_key_generator::uniq_key_generator(uint32_t ip, uint16_t pid,
                                       int32_t hash) {
  char raw[10];
  put_be32(raw, ip);
  put_be16(raw + 4, pid);
  put_be32(raw + 6, static_cast<uint32_t>(hash));
  write_hex(prefix_, raw, 10);
}

void uniq_key_generator::next(int64_t now_ms, char* out) {
  if (now_ms >= next_start_ || now_ms < start_) {
    start_ = month_start_ms(now_ms);
    next_start_ = next_month_start_ms(now_ms);
  }
  char raw[6];
  put_be32(raw, static_cast<uint32_t>(now_ms - start_));
  put_be16(raw + 4, counter_++);
  memcpy(out, prefix_, sizeof(prefix_));
  write_hex(out + sizeof(prefix_), raw, 6);
}

std::string uniq_key_generator::next(int64_t now_ms) {
  std::string result(msg_id_size, '0');
  next(now_ms, result.data());
  return result;
}

} // namespace rmq
