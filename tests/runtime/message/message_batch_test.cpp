// The batch body: round trips, RocketMQ's layout byte by byte, and strict
// decoding of garbage, truncated and damaged input.
#include "runtime/message/message_batch.hpp"

#include <random>

#include <zlib.h>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;

namespace {

std::vector<batch_entry> sample() {
  std::vector<batch_entry> xs(3);
  xs[0].flag = 7;
  xs[0].body = "hello";
  append_property(xs[0].properties, "TAGS", "A");
  xs[1].body = std::string(1000, 'x');
  xs[2].body = std::string("\0\1\2", 3);
  append_property(xs[2].properties, "KEYS", "k1 k2");
  append_property(xs[2].properties, "UNIQ_KEY", "ID");
  return xs;
}

std::string encoded(const std::vector<batch_entry>& xs) {
  auto buf = encode_batch(xs);
  REQUIRE(buf);
  return *buf;
}

caf::error decode_error(std::string_view buf) {
  auto res = decode_batch(buf);
  REQUIRE_FALSE(res);
  return res.error();
}

} // namespace

TEST_SUITE("runtime.message_batch") {
  TEST_CASE("a batch round-trips") {
    auto xs = sample();
    auto back = decode_batch(encoded(xs));
    REQUIRE(back);
    CHECK(*back == xs);
  }

  TEST_CASE("decoded properties have room for what the broker appends") {
    auto xs = sample();
    auto back = decode_batch(encoded(xs), 100);
    REQUIRE(back);
    CHECK(*back == xs);
    for (auto& e : *back)
      CHECK_GE(e.properties.capacity(), e.properties.size() + 100);
  }

  TEST_CASE("decoding keeps each entry's checked body CRC") {
    auto xs = sample();
    auto back = decode_batch(encoded(xs));
    REQUIRE(back);
    REQUIRE_EQ(back->size(), xs.size());
    for (auto& e : *back) {
      auto crc = crc32(crc32(0L, Z_NULL, 0),
                       reinterpret_cast<const Bytef*>(e.body.data()),
                       static_cast<uInt>(e.body.size()));
      CHECK_EQ(e.body_crc, static_cast<int64_t>(crc));
    }
    // Made by hand, an entry has none.
    CHECK_EQ(xs[0].body_crc, -1);
  }

  TEST_CASE("random batches round-trip") {
    std::mt19937 rng{test::test_seed()};
    for (int round = 0; round < 50; ++round) {
      std::vector<batch_entry> xs(1 + rng() % 20);
      for (auto& x : xs) {
        x.flag = static_cast<int32_t>(rng());
        x.body.resize(rng() % 300);
        for (auto& c : x.body)
          c = static_cast<char>(rng());
        if (rng() % 2)
          append_property(x.properties, "K", std::to_string(rng()));
      }
      auto back = decode_batch(encoded(xs));
      REQUIRE(back);
      CHECK(*back == xs);
    }
  }

  TEST_CASE("the layout is RocketMQ's encodeMessage") {
    std::vector<batch_entry> xs(1);
    xs[0].flag = 0x01020304;
    xs[0].body = "ab";
    xs[0].properties = "p";
    auto buf = encoded(xs);
    REQUIRE_EQ(buf.size(), 4 + 4 + 4 + 4 + 4 + 2 + 2 + 1u);
    CHECK_EQ(get_be32(buf.data()), buf.size());
    CHECK_EQ(get_be32(buf.data() + 4), 0u); // magic
    CHECK_NE(get_be32(buf.data() + 8), 0u); // body CRC
    CHECK_EQ(get_be32(buf.data() + 12), 0x01020304u);
    CHECK_EQ(get_be32(buf.data() + 16), 2u);
    CHECK_EQ(buf.substr(20, 2), "ab");
    CHECK_EQ(get_be16(buf.data() + 22), 1u);
    CHECK_EQ(buf.substr(24), "p");
  }

  TEST_CASE("properties over the int16 length are refused") {
    std::vector<batch_entry> xs(1);
    xs[0].body = "b";
    xs[0].properties = std::string(max_batch_properties_size + 1, 'p');
    auto res = encode_batch(xs);
    REQUIRE_FALSE(res);
    CHECK(res.error() == errc::invalid_parameter);
  }

  TEST_CASE("every truncation of a batch is refused") {
    auto buf = encoded(sample());
    for (size_t n = 0; n < buf.size(); ++n) {
      auto res = decode_batch(std::string_view{buf}.substr(0, n));
      // A cut exactly between two entries is a shorter, valid batch.
      if (res) {
        CHECK(res->size() < 3);
        continue;
      }
      CHECK(res.error() == errc::message_illegal);
    }
    CHECK(decode_error("") == errc::message_illegal);
  }

  TEST_CASE("damaged fields are refused with a clear error") {
    auto buf = encoded(sample());
    SUBCASE("bad magic") {
      put_be32(buf.data() + 4, 0xDAA320A7);
      auto err = decode_error(buf);
      CHECK(err == errc::message_illegal);
      CHECK_NE(error_detail(err).find("magic"), std::string::npos);
    }
    SUBCASE("body CRC") {
      buf[20] ^= 1;
      auto err = decode_error(buf);
      CHECK_NE(error_detail(err).find("CRC"), std::string::npos);
      CHECK_NE(error_detail(err).find("entry 0"), std::string::npos);
    }
    SUBCASE("total size beyond the buffer") {
      put_be32(buf.data(), static_cast<uint32_t>(buf.size() + 1));
      CHECK_NE(error_detail(decode_error(buf)).find("total size"),
               std::string::npos);
    }
    SUBCASE("negative total size") {
      put_be32(buf.data(), 0x80000000);
      CHECK(decode_error(buf) == errc::message_illegal);
    }
    SUBCASE("body length beyond the entry") {
      put_be32(buf.data() + 16, 1'000'000);
      CHECK_NE(error_detail(decode_error(buf)).find("body length"),
               std::string::npos);
    }
    SUBCASE("properties length off by one") {
      // Entry 0: 20 header bytes, body "hello", then the int16 length of
      // its 7 property bytes ("TAGS\x01A\x02").
      REQUIRE_EQ(get_be16(buf.data() + 25), 7u);
      put_be16(buf.data() + 25, 6);
      CHECK_NE(error_detail(decode_error(buf)).find("properties length"),
               std::string::npos);
    }
    SUBCASE("trailing garbage") {
      buf += "xyz";
      auto err = decode_error(buf);
      CHECK_NE(error_detail(err).find("entry 3"), std::string::npos);
    }
  }

  TEST_CASE("random garbage never decodes to nonsense or crashes") {
    std::mt19937 rng{test::test_seed()};
    for (int round = 0; round < 2000; ++round) {
      std::string buf(rng() % 64, '\0');
      for (auto& c : buf)
        c = static_cast<char>(rng());
      auto res = decode_batch(buf);
      if (!res)
        CHECK(res.error() == errc::message_illegal);
    }
  }
}
