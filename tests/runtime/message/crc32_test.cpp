// The body CRC-32 against zlib's, for every length around the 8-, 16- and
// 64-byte steps of both ways to compute it, and for random bodies.
#include "runtime/message/crc32.hpp"

#include <random>
#include <string>

#include <doctest/doctest.h>
#include <zlib.h>

#include "tests/support/test_seed.hpp"

using namespace rmq;

namespace {

uint32_t zlib_crc(const std::string& s) {
  return static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0),
                                     reinterpret_cast<const Bytef*>(s.data()),
                                     static_cast<uInt>(s.size())));
}

} // namespace

TEST_SUITE("runtime.crc32") {
  TEST_CASE("known values") {
    CHECK_EQ(crc32_of(""), 0u);
    CHECK_EQ(crc32_of("123456789"), 0xCBF43926u);
  }

  TEST_CASE("equal to zlib's for random bodies of every small length") {
    std::mt19937 rng{test::test_seed()};
    for (size_t len = 0; len < 300; ++len) {
      std::string s(len, '\0');
      for (auto& c : s)
        c = static_cast<char>(rng());
      CHECK_EQ(crc32_of(s), zlib_crc(s));
      // An unaligned start.
      if (len > 3)
        CHECK_EQ(crc32_of(s.data() + 3, len - 3), zlib_crc(s.substr(3)));
    }
    std::string big(1 << 20, '\0');
    for (auto& c : big)
      c = static_cast<char>(rng());
    CHECK_EQ(crc32_of(big), zlib_crc(big));
  }
}
