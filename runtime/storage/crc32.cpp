#include "runtime/storage/crc32.hpp"

#include <cstring>

namespace rmq::storage {

namespace {

// t[0] is the byte-wise table of the reflected polynomial; t[k][i] is the
// CRC of byte i followed by k zero bytes, so eight bytes take one lookup
// each.
struct crc_tables {
  uint32_t t[8][256];
  constexpr crc_tables() : t() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k)
        t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
};

constexpr crc_tables tables;

// The four bytes at `p` as a little-endian number.
uint32_t le32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16
         | uint32_t{p[3]} << 24;
}

} // namespace

uint32_t crc32_of(const char* data, size_t n) {
  auto& t = tables.t;
  auto p = reinterpret_cast<const unsigned char*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (; n >= 8; p += 8, n -= 8) {
    auto lo = le32(p) ^ c;
    auto hi = le32(p + 4);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF]
        ^ t[4][lo >> 24] ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF]
        ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++p, --n)
    c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

} // namespace rmq::storage
