// The storage files' integers are big-endian (Java ByteBuffer order).
#include "runtime/message/byte_coding.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace rmq;

TEST_SUITE("runtime.byte_coding") {
  TEST_CASE("integers are written most significant byte first") {
    char buf[8] = {};
    put_be16(buf, 0x0102);
    CHECK_EQ(std::string(buf, 2), std::string("\x01\x02", 2));
    put_be32(buf, 0xDAA320A7);
    CHECK_EQ(std::string(buf, 4), std::string("\xDA\xA3\x20\xA7", 4));
    put_be64(buf, 0x0102030405060708);
    CHECK_EQ(std::string(buf, 8),
             std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  }

  TEST_CASE("get reads back what put wrote") {
    char buf[8];
    put_be16(buf, 0xFFFE);
    CHECK_EQ(get_be16(buf), 0xFFFE);
    put_be32(buf, 0x80000001);
    CHECK_EQ(get_be32(buf), 0x80000001u);
    put_be64(buf, 0xFEDCBA9876543210);
    CHECK_EQ(get_be64(buf), 0xFEDCBA9876543210u);
  }

} // TEST_SUITE
