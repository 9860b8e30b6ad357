// The JSON header's fast path against the full codec (nlohmann/json):
// whatever the fast path writes or reads, the full codec writes or reads
// the same; random commands and seeded random edits of real headers.
#include "runtime/remoting/json_header_fast.hpp"

#include <random>
#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/header_codec.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq::remoting;

namespace {

bool same_header(const remoting_command& x, const remoting_command& y) {
  return x.code == y.code && x.language == y.language && x.version == y.version
         && x.opaque == y.opaque && x.flag == y.flag && x.remark == y.remark
         && x.ext_fields == y.ext_fields;
}

std::string random_text(std::mt19937& rng, bool ascii_only) {
  // Quotes, backslashes, control characters and plain text.
  static const std::string alphabet
    = "abcXYZ019 _-%\"\\/\x01\x02\x1f\n\t\r\b\f\x7f";
  std::string out;
  auto n = rng() % 12;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(ascii_only || rng() % 10 != 0
                    ? alphabet[rng() % alphabet.size()]
                    : static_cast<char>(0x80 + rng() % 0x80));
  return out;
}

remoting_command random_command(std::mt19937& rng, bool ascii_only) {
  remoting_command c;
  c.code = static_cast<int32_t>(rng() % 2 ? rng() % 400 : rng());
  c.language = rng() % 2 ? "JAVA" : random_text(rng, ascii_only);
  c.version = static_cast<int32_t>(rng() % 500);
  c.opaque = static_cast<int32_t>(rng());
  c.flag = static_cast<int32_t>(rng() % 4);
  if (rng() % 2)
    c.remark = random_text(rng, ascii_only);
  auto n = rng() % 6;
  for (unsigned i = 0; i < n; ++i)
    c.ext_fields[random_text(rng, ascii_only)] = random_text(rng, ascii_only);
  return c;
}

} // namespace

TEST_SUITE("runtime.remoting_json_fast") {
  TEST_CASE("the fast path writes and reads what the full codec does") {
    std::mt19937 rng{rmq::test::test_seed()};
    int fast_written = 0;
    for (int round = 0; round < 5000; ++round) {
      auto cmd = random_command(rng, round % 2 == 0);
      std::string fast;
      auto full = encode_json_header_full(cmd);
      if (fast_json::encode(cmd, fast)) {
        ++fast_written;
        REQUIRE_EQ(fast, full);
      }
      remoting_command a;
      remoting_command b;
      std::string err;
      REQUIRE_MESSAGE(decode_json_header_full(full, b, err), err);
      if (fast_json::decode(full, a))
        CHECK(same_header(a, b));
    }
    CHECK_GT(fast_written, 2000);
  }

  TEST_CASE("edited headers: the fast path reads only what the full codec "
            "reads the same way") {
    std::mt19937 rng{rmq::test::test_seed()};
    const std::string seeds[]
      = {R"({"code":310,"language":"JAVA","opaque":2,"flag":0,"version":121,)"
         R"("extFields":{"a":"PID_WIRE","b":"TopicTest","c":"TBW102","d":4,)"
         R"("e":0,"f":0,"g":1795935527487,"h":0,)"
         R"("i":"TAGS\u0001TagA\u0002KEYS\u0001k-0\u0002","j":0,"k":false}})",
         R"({"code":0,"extFields":{"offset":"0"},"flag":1,"language":"JAVA",)"
         R"("opaque":13,"remark":null,"serializeTypeCurrentRPC":"JSON",)"
         R"("version":479})",
         R"( { "code" : 34 , "extFields" : { } , "opaque" : -7 } )"};
    const std::string bits = "{}[]\":,-0123456789.eEtruefalsn \\u";
    int fast_read = 0;
    for (int round = 0; round < 20000; ++round) {
      auto text = seeds[rng() % 3];
      auto edits = rng() % 4;
      for (unsigned e = 0; e < edits && !text.empty(); ++e) {
        auto at = rng() % text.size();
        switch (rng() % 3) {
          case 0:
            text[at] = bits[rng() % bits.size()];
            break;
          case 1:
            text.erase(at, 1);
            break;
          default:
            text.insert(at, 1, bits[rng() % bits.size()]);
        }
      }
      remoting_command a;
      if (!fast_json::decode(text, a))
        continue;
      ++fast_read;
      remoting_command b;
      std::string err;
      REQUIRE_MESSAGE(decode_json_header_full(text, b, err),
                      "fast path read what the full codec refuses: " << text);
      CHECK_MESSAGE(same_header(a, b), text);
    }
    CHECK_GT(fast_read, 1000);
  }
}
