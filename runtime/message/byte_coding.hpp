// Big-endian (network / Java ByteBuffer order) integers in storage files:
// the one place that puts and gets them, for records, blank markers,
// consume-queue units, index files and the checkpoint.
#pragma once

#include <cstdint>
#include <cstring>

namespace rmq {

/// Writes `x` as 2 big-endian bytes at `p`.
inline void put_be16(char* p, uint16_t x) {
  p[0] = static_cast<char>(x >> 8);
  p[1] = static_cast<char>(x & 0xFF);
}

/// Writes `x` as 4 big-endian bytes at `p`.
inline void put_be32(char* p, uint32_t x) {
  x = __builtin_bswap32(x);
  memcpy(p, &x, 4);
}

/// Writes `x` as 8 big-endian bytes at `p`.
inline void put_be64(char* p, uint64_t x) {
  x = __builtin_bswap64(x);
  memcpy(p, &x, 8);
}

/// Returns the 2 big-endian bytes at `p`.
inline uint16_t get_be16(const char* p) {
  return static_cast<uint16_t>((static_cast<uint8_t>(p[0]) << 8)
                               | static_cast<uint8_t>(p[1]));
}

/// Returns the 4 big-endian bytes at `p`.
inline uint32_t get_be32(const char* p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return __builtin_bswap32(x);
}

/// Returns the 8 big-endian bytes at `p`.
inline uint64_t get_be64(const char* p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return __builtin_bswap64(x);
}

} // namespace rmq
