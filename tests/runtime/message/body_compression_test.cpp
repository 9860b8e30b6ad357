// zlib message bodies: round trips, broken streams, and the bound that
// keeps a small stream from inflating into gigabytes.
#include "runtime/message/body_compression.hpp"

#include <random>

#include <doctest/doctest.h>
#include <zlib.h>

#include "messages/common/errors.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;

TEST_SUITE("runtime.body_compression") {
  TEST_CASE("round trip of text, random and empty bodies") {
    std::mt19937_64 rng{test::test_seed()};
    std::string random(100000, '\0');
    for (auto& c : random)
      c = static_cast<char>(rng());
    std::string text;
    for (int i = 0; i < 2000; ++i)
      text += "message body number " + std::to_string(i) + "\n";
    for (auto* body : {&random, &text}) {
      for (int level : {0, 1, 5, 9}) {
        CAPTURE(level);
        auto z = compress_body(*body, level);
        REQUIRE_FALSE(z.empty());
        auto back = decompress_body(z, body->size());
        REQUIRE(back);
        CHECK(*back == *body);
      }
    }
    CHECK_LT(compress_body(text, 5).size(), text.size() / 4);
    auto empty = decompress_body(compress_body("", 5), 10);
    REQUIRE(empty);
    CHECK(empty->empty());
  }

  TEST_CASE("an inflated body holds about its size, whatever the guess") {
    // A consumer keeps every body until it is consumed: a 64 KiB body in
    // a buffer sized for four times its stream made it hold 4x its
    // flow-control bound.
    std::mt19937_64 rng{test::test_seed()};
    std::string random(64 * 1024, '\0');
    for (auto& c : random)
      c = static_cast<char>(rng());
    std::string text(64 * 1024, 'a');
    for (auto* body : {&random, &text}) {
      auto back = decompress_body(compress_body(*body, 5), 4 * 1024 * 1024);
      REQUIRE(back);
      CHECK(*back == *body);
      CHECK_LE(back->capacity(), body->size() + body->size() / 8);
    }
  }

  TEST_CASE("RFC 1950 stream, as Java's Deflater writes") {
    auto z = compress_body("hello", 5);
    std::string out(16, '\0');
    uLongf len = out.size();
    REQUIRE_EQ(uncompress(reinterpret_cast<Bytef*>(out.data()), &len,
                          reinterpret_cast<const Bytef*>(z.data()), z.size()),
               Z_OK);
    out.resize(len);
    CHECK_EQ(out, "hello");
    CHECK_EQ(static_cast<unsigned char>(z[0]) & 0x0f, 8); // deflate
  }

  TEST_CASE("a body that inflates past the bound is illegal") {
    std::string big(10 * 1024 * 1024, 'a');
    auto z = compress_body(big, 9);
    CHECK_LT(z.size(), 20000u); // a zip bomb: tiny in, huge out
    auto err = decompress_body(z, 1024 * 1024);
    REQUIRE_FALSE(err);
    CHECK(err.error() == errc::message_illegal);
    CHECK_NE(error_detail(err.error()).find("1048576"), std::string::npos);
    // Exactly at the bound fits.
    auto ok = decompress_body(z, big.size());
    REQUIRE(ok);
    CHECK_EQ(ok->size(), big.size());
    auto over = decompress_body(z, big.size() - 1);
    CHECK_FALSE(over);
  }

  TEST_CASE("broken streams are corrupt data") {
    auto z = compress_body(std::string(5000, 'x') + "tail", 5);
    for (auto bad : {std::string{}, std::string("not zlib at all"),
                     z.substr(0, z.size() / 2), z + "trailing"}) {
      auto res = decompress_body(bad, 1 << 20);
      REQUIRE_FALSE(res);
      CHECK(res.error() == errc::corrupt_data);
    }
    auto flipped = z;
    flipped[z.size() - 2] ^= 0x55; // Adler-32 checksum
    auto res = decompress_body(flipped, 1 << 20);
    REQUIRE_FALSE(res);
    CHECK(res.error() == errc::corrupt_data);
  }
}
