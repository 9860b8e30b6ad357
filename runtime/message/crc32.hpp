// CRC-32 (IEEE 802.3, zlib's crc32) of message bodies: a record's and a
// batch entry's body CRC. By carry-less multiplication (PCLMULQDQ) where
// the CPU has it, by slicing-by-8 for the tail and elsewhere: 128 B take
// ~16 ns instead of ~34, 1 KiB ~37 instead of ~370 (zlib 1.2.13's is
// slower than either; docs/benchmarks.md, "Broker").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rmq {

/// Returns the CRC-32 of `n` bytes at `data`, equal to zlib's
/// `crc32(crc32(0, Z_NULL, 0), data, n)`.
uint32_t crc32_of(const char* data, size_t n);

inline uint32_t crc32_of(std::string_view bytes) {
  return crc32_of(bytes.data(), bytes.size());
}

} // namespace rmq
