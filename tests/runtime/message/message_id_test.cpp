// RocketMQ's offsetMsgId and UNIQ_KEY: known vectors from RocketMQ's
// MessageDecoderTest, round trips, garbage, and UTC month arithmetic.
#include "runtime/message/message_id.hpp"

#include <random>
#include <set>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq;

namespace {

// 2026-12-01T00:00:00Z and its neighbours.
constexpr int64_t dec_2026 = 1'796'083'200'000;
constexpr int64_t nov_2026 = 1'793'491'200'000;
constexpr int64_t jan_2027 = 1'798'761'600'000;

} // namespace

TEST_SUITE("runtime.message_id") {
  TEST_CASE("offsetMsgId matches RocketMQ's vector") {
    // MessageDecoderTest: store host 100.81.0.250:10911, offset 0x489A3AA09E.
    auto id = encode_offset_msg_id(0x645100FA, 10911, 311'825'178'782);
    CHECK_EQ(id, "645100FA00002A9F000000489A3AA09E");
    auto back = decode_offset_msg_id("645100fa00002a9f000000489a3aa09e");
    REQUIRE(back);
    CHECK_EQ(ipv4_to_string(back->ip), "100.81.0.250");
    CHECK_EQ(back->port, 10911u);
    CHECK_EQ(back->offset, 311'825'178'782);
  }

  TEST_CASE("offsetMsgId round-trips") {
    std::mt19937_64 rng{test::test_seed()};
    for (int i = 0; i < 100; ++i) {
      auto ip = static_cast<uint32_t>(rng());
      auto port = static_cast<uint32_t>(rng() & 0xFFFF);
      auto offset = static_cast<int64_t>(rng() >> 1);
      auto id = encode_offset_msg_id(ip, port, offset);
      auto back = decode_offset_msg_id(id);
      REQUIRE(back);
      CHECK_EQ(back->ip, ip);
      CHECK_EQ(back->port, port);
      CHECK_EQ(back->offset, offset);
    }
  }

  TEST_CASE("ids written in place equal the ones returned") {
    char buf[msg_id_size + 2] = {};
    buf[msg_id_size] = '!';
    write_offset_msg_id(buf, 0x0A000001, 10911, 123'456'789);
    CHECK_EQ(std::string(buf, msg_id_size),
             encode_offset_msg_id(0x0A000001, 10911, 123'456'789));
    CHECK_EQ(buf[msg_id_size], '!');
    uniq_key_generator a{0x0A000001, 77, 12345};
    uniq_key_generator b{0x0A000001, 77, 12345};
    int64_t now = 1'764'547'200'000; // 2025-12-01 00:00 UTC
    for (int i = 0; i < 3; ++i) {
      b.next(now + i, buf);
      CHECK_EQ(std::string(buf, msg_id_size), a.next(now + i));
      CHECK_EQ(buf[msg_id_size], '!');
    }
  }

  TEST_CASE("malformed ids are refused with invalid_parameter") {
    CHECK(decode_offset_msg_id("").error() == errc::invalid_parameter);
    CHECK(decode_offset_msg_id("645100FA00002A9F000000489A3AA09").error()
          == errc::invalid_parameter);
    auto bad = decode_offset_msg_id("645100FA00002A9F000000489A3AA0XE");
    REQUIRE_FALSE(bad);
    CHECK(bad.error() == errc::invalid_parameter);
    CHECK_NE(error_detail(bad.error()).find("30"), std::string::npos);
    CHECK(decode_uniq_key("G0000000000000000000000000000000").error()
          == errc::invalid_parameter);
    // The 56-character IPv6 form is not ours.
    CHECK_FALSE(decode_offset_msg_id(
      "24084004018081003FAA1DDE2B3F898A00002A9F0000000000000CA0"));
  }

  TEST_CASE("month boundaries are UTC months") {
    CHECK_EQ(month_start_ms(dec_2026), dec_2026);
    CHECK_EQ(month_start_ms(dec_2026 - 1), nov_2026);
    CHECK_EQ(month_start_ms(dec_2026 + 17 * 86'400'000LL), dec_2026);
    CHECK_EQ(next_month_start_ms(dec_2026), jan_2027);
    CHECK_EQ(next_month_start_ms(nov_2026), dec_2026);
    // A leap February.
    CHECK_EQ(next_month_start_ms(1'706'745'600'000), 1'709'251'200'000);
    CHECK_EQ(month_start_ms(-1), -2'678'400'000);
  }

  TEST_CASE("UNIQ_KEY carries ip, pid, hash, time and a counter") {
    uniq_key_generator gen{0x0A000001, 4242, -559038737};
    auto now = dec_2026 + 3'600'000 + 5;
    auto a = gen.next(now);
    auto b = gen.next(now);
    CHECK_EQ(a.size(), 32u);
    CHECK_EQ(a.substr(0, 20), "0A0000011092DEADBEEF");
    CHECK_EQ(a, "0A0000011092DEADBEEF0036EE850000");
    CHECK_EQ(b.substr(28), "0001");
    auto x = decode_uniq_key(a);
    REQUIRE(x);
    CHECK_EQ(ipv4_to_string(x->ip), "10.0.0.1");
    CHECK_EQ(x->pid, 4242);
    CHECK_EQ(x->hash, -559038737);
    CHECK_EQ(x->month_ms, 3'600'005u);
    CHECK_EQ(x->counter, 0);
    CHECK_EQ(uniq_key_time(*x, now + 10), now);
  }

  TEST_CASE("UNIQ_KEY time reads into the previous month when needed") {
    uniq_key_generator gen{1, 2, 3};
    // Made late in November, read early in December.
    auto made = dec_2026 - 60'000;
    auto x = decode_uniq_key(gen.next(made));
    REQUIRE(x);
    CHECK_EQ(uniq_key_time(*x, dec_2026 + 1'000), made);
    // A new month restarts the span.
    auto y = decode_uniq_key(gen.next(dec_2026 + 7));
    REQUIRE(y);
    CHECK_EQ(y->month_ms, 7u);
    CHECK_EQ(y->counter, 1);
  }

  TEST_CASE("ids of one generator are distinct and the counter wraps") {
    uniq_key_generator gen{1, 2, 3};
    std::set<std::string> seen;
    for (int i = 0; i < 70'000; ++i)
      seen.insert(gen.next(dec_2026 + i / 1000));
    CHECK_EQ(seen.size(), 70'000u);
    auto x = decode_uniq_key(gen.next(dec_2026 + 70));
    REQUIRE(x);
    CHECK_EQ(x->counter, 70'000 % 65'536);
  }
}
