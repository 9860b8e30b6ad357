#include "runtime/message/crc32.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RMQ_CRC32_CLMUL 1
#endif

namespace rmq {

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

// Slicing-by-8 on the running (not inverted) CRC `c`.
uint32_t crc_by_table(uint32_t c, const unsigned char* p, size_t n) {
  auto& t = tables.t;
  for (; n >= 8; p += 8, n -= 8) {
    auto lo = le32(p) ^ c;
    auto hi = le32(p + 4);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF]
        ^ t[4][lo >> 24] ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF]
        ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++p, --n)
    c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c;
}

#ifdef RMQ_CRC32_CLMUL

// Folding by carry-less multiplication (Intel, "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ", 2009), for the reflected
// polynomial: four 16-byte lanes are folded 64 bytes ahead, then into one
// lane, which is reduced to 32 bits by Barrett reduction. The constants
// are x^k mod P for the fold distances, P itself and floor(x^64 / P), all
// bit-reflected. Takes n >= 64, a multiple of 16; `c` as in crc_by_table.
#define RMQ_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

RMQ_CLMUL_TARGET inline __m128i load(const unsigned char* at) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

// x * (lo, hi) folded: x.lo * k.lo ^ x.hi * k.hi.
RMQ_CLMUL_TARGET inline __m128i fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
                       _mm_clmulepi64_si128(x, k, 0x11));
}

RMQ_CLMUL_TARGET uint32_t crc_by_clmul(uint32_t c, const unsigned char* p,
                                       size_t n) {
  const auto k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4); // 512 bits
  const auto k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0); // 128 bits
  const auto k5 = _mm_set_epi64x(0, 0x163cd6124);             // 64 bits
  const auto poly_mu = _mm_set_epi64x(0x1f7011641, 0x1db710641);
  const auto mask32 = _mm_set_epi32(0, 0, 0, -1);
  auto x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(c)));
  auto x1 = load(p + 16);
  auto x2 = load(p + 32);
  auto x3 = load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x0 = _mm_xor_si128(fold(x0, k1k2), load(p));
    x1 = _mm_xor_si128(fold(x1, k1k2), load(p + 16));
    x2 = _mm_xor_si128(fold(x2, k1k2), load(p + 32));
    x3 = _mm_xor_si128(fold(x3, k1k2), load(p + 48));
  }
  auto x = _mm_xor_si128(fold(x0, k3k4), x1);
  x = _mm_xor_si128(fold(x, k3k4), x2);
  x = _mm_xor_si128(fold(x, k3k4), x3);
  for (; n >= 16; p += 16, n -= 16)
    x = _mm_xor_si128(fold(x, k3k4), load(p));
  // 128 -> 64 bits, then 64 -> 32.
  x = _mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x10), _mm_srli_si128(x, 8));
  x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, mask32), k5, 0x00),
                    _mm_srli_si128(x, 4));
  // Barrett: q = (x mod x^32) * mu, r = x ^ (q mod x^32) * P.
  auto q = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), poly_mu, 0x10);
  q = _mm_clmulepi64_si128(_mm_and_si128(q, mask32), poly_mu, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, q), 1));
}

bool has_clmul() {
  static const bool result = __builtin_cpu_supports("pclmul")
                             && __builtin_cpu_supports("sse4.1");
  return result;
}

#endif

} // namespace

uint32_t crc32_of(const char* data, size_t n) {
  auto p = reinterpret_cast<const unsigned char*>(data);
  uint32_t c = 0xFFFFFFFFu;
#ifdef RMQ_CRC32_CLMUL
  if (n >= 64 && has_clmul()) {
    auto folded = n & ~size_t{15};
    c = crc_by_clmul(c, p, folded);
    p += folded;
    n -= folded;
  }
#endif
  return crc_by_table(c, p, n) ^ 0xFFFFFFFFu;
}

} // namespace rmq
