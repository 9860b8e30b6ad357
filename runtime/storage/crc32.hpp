// CRC-32 (IEEE 802.3, zlib's crc32) of message bodies, by slicing-by-8:
// a record's and a batch entry's body CRC. zlib 1.2.13 took ~2.5 ns per
// byte on 128 B bodies, this takes ~1 (docs/benchmarks.md, "Broker").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rmq::storage {

/// Returns the CRC-32 of `n` bytes at `data`, equal to zlib's
/// `crc32(crc32(0, Z_NULL, 0), data, n)`.
uint32_t crc32_of(const char* data, size_t n);

inline uint32_t crc32_of(std::string_view bytes) {
  return crc32_of(bytes.data(), bytes.size());
}

} // namespace rmq::storage
