// Remoting frames and headers against RocketMQ's bytes: the frames a Java
// client and a JavaScript 4.x client (ali-ons) write, as captured in
// shared/reference/rocketmq-remoting.md, decoded field by field and
// re-encoded byte for byte; and every way a frame can lie.
#include "runtime/remoting/frame_codec.hpp"

#include <cstdlib>
#include <random>
#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/header_codec.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/support/frame_bytes.hpp"
#include "tests/support/test_seed.hpp"

using namespace rmq::remoting;
using rmq::test::be32;
using rmq::test::bytes;
using rmq::test::json_frame;

namespace {

remoting_command decode_whole(const std::string& frame) {
  frame_reader r;
  r.feed(frame);
  auto cmd = r.next();
  REQUIRE_MESSAGE(cmd, r.error());
  CHECK_EQ(r.buffered(), 0u);
  return *cmd;
}

// The binary GET_ROUTEINFO_BY_TOPIC a 5.3.3 Java client sends.
const std::string binary_route_query = bytes(
  "0000002d 01000029 0069 00 01df 00000001 00000000 00000000 "
  "00000014 0005 \"topic\" 00000009 \"TopicTest\"");

} // namespace

TEST_SUITE("runtime.remoting_frames") {
  TEST_CASE("a binary route query as Java writes it, and back byte for byte") {
    auto cmd = decode_whole(binary_route_query);
    CHECK_EQ(cmd.serialization, serialize_type::rocketmq);
    CHECK_EQ(cmd.code, request_code::get_routeinfo_by_topic);
    CHECK_EQ(cmd.language, "JAVA");
    CHECK_EQ(cmd.version, 479);
    CHECK_EQ(cmd.opaque, 1);
    CHECK_EQ(cmd.flag, 0);
    CHECK_FALSE(cmd.remark);
    REQUIRE(cmd.field("topic"));
    CHECK_EQ(*cmd.field("topic"), "TopicTest");
    CHECK(cmd.body.empty());
    CHECK_EQ(encode_frame(cmd), binary_route_query);
  }

  TEST_CASE("the first frame of ali-ons: a JSON route query, version 121") {
    auto header = std::string{R"({"code":105,"language":"JAVA","opaque":1,)"
                              R"("flag":0,"version":121,)"
                              R"("extFields":{"topic":"TopicTest"}})"};
    auto frame = json_frame(header);
    CHECK_EQ(frame.substr(0, 8), bytes("00000066 00000062"));
    auto cmd = decode_whole(frame);
    CHECK_EQ(cmd.serialization, serialize_type::json);
    CHECK_EQ(cmd.code, 105);
    CHECK_EQ(cmd.version, 121);
    CHECK_EQ(cmd.opaque, 1);
    CHECK_FALSE(cmd.is_oneway());
    CHECK_EQ(*cmd.field("topic"), "TopicTest");
  }

  TEST_CASE("a JSON response is written as fastjson writes it") {
    remoting_command cmd;
    cmd.code = response_code::success;
    cmd.language = "JAVA";
    cmd.version = 479;
    cmd.opaque = 13;
    cmd.flag = command_flag::response;
    cmd.ext_fields["offset"] = "0";
    CHECK_EQ(encode_json_header(cmd),
             R"({"code":0,"extFields":{"offset":"0"},"flag":1,)"
             R"("language":"JAVA","opaque":13,)"
             R"("serializeTypeCurrentRPC":"JSON","version":479})");
    cmd.ext_fields.clear();
    cmd.remark = "No topic route info in name server for the topic: T";
    cmd.code = response_code::topic_not_exist;
    CHECK_EQ(
      encode_json_header(cmd),
      R"({"code":17,"flag":1,"language":"JAVA","opaque":13,)"
      R"("remark":"No topic route info in name server for the topic: T",)"
      R"("serializeTypeCurrentRPC":"JSON","version":479})");
  }

  TEST_CASE("SEND_MESSAGE_V2 from ali-ons: numbers and booleans in extFields "
            "are taken as their text, control characters unescaped") {
    auto header = std::string{
      R"({"code":310,"language":"JAVA","opaque":2,"flag":0,"version":121,)"
      R"("extFields":{"a":"PID_WIRE","b":"TopicTest","c":"TBW102","d":4,)"
      R"("e":0,"f":0,"g":1795935527487,"h":0,)"
      R"("i":"TAGS\u0001TagA\u0002KEYS\u0001k-0\u0002","j":0,"k":false,)"
      R"("zz":null,"nested":{"x":1}}})"};
    auto cmd = decode_whole(json_frame(header, "wire-body"));
    CHECK_EQ(cmd.code, request_code::send_message_v2);
    CHECK_EQ(*cmd.field("d"), "4");
    CHECK_EQ(*cmd.field("g"), "1795935527487");
    CHECK_EQ(*cmd.field("k"), "false");
    CHECK_EQ(*cmd.field("i"), "TAGS\x01TagA\x02KEYS\x01k-0\x02");
    CHECK_EQ(*cmd.field("nested"), R"({"x":1})");
    CHECK_FALSE(cmd.field("zz"));
    CHECK_EQ(cmd.body, "wire-body");
  }

  TEST_CASE("numeric strings in the header's own fields, as some clients "
            "write them") {
    auto cmd = decode_whole(
      json_frame(R"({"code":"34","opaque":"7","flag":2,"language":"GO"})"));
    CHECK_EQ(cmd.code, request_code::heart_beat);
    CHECK_EQ(cmd.opaque, 7);
    CHECK(cmd.is_oneway());
    CHECK_EQ(cmd.language, "GO");
  }

  TEST_CASE("both serializations round-trip every field, body included") {
    remoting_command cmd;
    cmd.code = request_code::pull_message;
    cmd.language = "NODE_JS";
    cmd.version = 401;
    cmd.opaque = -5;
    cmd.flag = command_flag::oneway;
    cmd.remark = "r\xc3\xa9mark";
    cmd.ext_fields
      = {{"consumerGroup", "G"}, {"queueOffset", "12"}, {"empty", ""}};
    cmd.body = std::string("\0\x01\xff body", 8);
    for (auto how : {serialize_type::json, serialize_type::rocketmq}) {
      CAPTURE(static_cast<int>(how));
      cmd.serialization = how;
      auto back = decode_whole(encode_frame(cmd));
      CHECK_EQ(back.code, cmd.code);
      CHECK_EQ(back.language, cmd.language);
      CHECK_EQ(back.version, cmd.version);
      CHECK_EQ(back.opaque, cmd.opaque);
      CHECK_EQ(back.flag, cmd.flag);
      CHECK_EQ(back.remark, cmd.remark);
      CHECK_EQ(back.ext_fields, cmd.ext_fields);
      CHECK_EQ(back.body, cmd.body);
      CHECK_EQ(back.serialization, how);
    }
  }

  TEST_CASE("a response copies the opaque and the request's serialization") {
    auto req = decode_whole(binary_route_query);
    auto res = make_response(req, response_code::topic_not_exist, "no route");
    CHECK_EQ(res.opaque, 1);
    CHECK(res.is_response());
    CHECK_EQ(res.serialization, serialize_type::rocketmq);
    CHECK_EQ(res.version, our_version);
    auto back = decode_whole(encode_frame(res));
    CHECK_EQ(back.code, response_code::topic_not_exist);
    CHECK_EQ(back.remark, std::optional<std::string>{"no route"});
  }

  TEST_CASE("a stream fed byte by byte, and several frames in one read") {
    auto two = binary_route_query + json_frame(R"({"code":34,"opaque":2})");
    frame_reader r;
    std::vector<remoting_command> got;
    for (char c : two) {
      r.feed(std::string_view{&c, 1});
      while (auto cmd = r.next())
        got.push_back(*cmd);
    }
    REQUIRE_EQ(got.size(), 2u);
    CHECK_EQ(got[0].code, 105);
    CHECK_EQ(got[1].code, 34);
    frame_reader all;
    all.feed(two + two);
    int n = 0;
    while (all.next())
      ++n;
    CHECK_EQ(n, 4);
    CHECK_FALSE(all.failed());
  }

  TEST_CASE("a frame over the limit is refused from its length alone") {
    frame_reader r{1024};
    r.feed(be32(1021)); // 1021 + 4 > 1024
    CHECK_FALSE(r.next());
    REQUIRE(r.failed());
    CHECK_EQ(r.error(), "frame of 1025 bytes over the limit of 1024");
    // Nothing is buffered for it, and nothing more is taken.
    r.feed(std::string(4096, 'x'));
    CHECK_FALSE(r.next());
    CHECK_LE(r.buffered(), 4u);
    frame_reader ok{1024};
    ok.feed(be32(1020));
    CHECK_FALSE(ok.next());
    CHECK_FALSE(ok.failed());
    CHECK_EQ(ok.pending_frame(), 1020u);
    frame_reader big;
    big.feed(bytes("7fffffff"));
    CHECK_FALSE(big.next());
    CHECK(big.failed());
  }

  TEST_CASE("lengths that lie and headers that do not parse are refused") {
    auto refused = [](const std::string& frame) {
      frame_reader r;
      r.feed(frame);
      auto cmd = r.next();
      CHECK_FALSE(cmd);
      CHECK(r.failed());
      return r.error();
    };
    CHECK_EQ(refused(bytes("00000003 000000")),
             "frame length 3 leaves no room for the header length");
    CHECK_EQ(refused(bytes("00000008 00000010 00000000")),
             "header length 16 runs past the 8-byte frame");
    CHECK_EQ(refused(bytes("00000006 02000002 \"{}\"")),
             "unknown header serialization 2");
    CHECK_EQ(refused(json_frame("{not json")), "header is no JSON object");
    CHECK_EQ(refused(json_frame("[1,2]")), "header is no JSON object");
    CHECK_EQ(refused(json_frame(R"({"code":"abc"})")),
             "header field code is no int32: abc");
    CHECK_EQ(refused(json_frame(R"({"code":4294967296})")),
             "header field code is no int32: 4294967296");
    CHECK_EQ(refused(json_frame(R"({"code":1,"extFields":[1]})")),
             "header field extFields is no object");
    // Every truncation of a binary header inside its fields.
    auto header = binary_route_query.substr(8);
    for (size_t n = 0; n < header.size(); ++n) {
      CAPTURE(n);
      auto cut = header.substr(0, n);
      auto frame = be32(static_cast<uint32_t>(4 + cut.size()))
                   + be32((1u << 24) | static_cast<uint32_t>(cut.size())) + cut;
      frame_reader r;
      r.feed(frame);
      CHECK_FALSE(r.next());
      CHECK(r.failed());
    }
    // A remark length of 2^32-1.
    CHECK_EQ(refused(bytes("00000017 01000013 0069 00 01df 00000001 00000000 "
                           "ffffffff 00000000")),
             "binary header's remark length 4294967295 runs past the header");
  }

  TEST_CASE("random and mutated frames never crash the reader") {
    std::mt19937 rng{rmq::test::test_seed()};
    remoting_command base;
    base.code = 310;
    base.ext_fields = {{"a", "PG"}, {"b", "Topic"}, {"i", "TAGS\x01x\x02"}};
    base.body = "body";
    std::vector<std::string> seeds;
    for (auto how : {serialize_type::json, serialize_type::rocketmq}) {
      base.serialization = how;
      seeds.push_back(encode_frame(base));
    }
    seeds.push_back(binary_route_query);
    int decoded = 0;
    int refused = 0;
    // RMQ_FUZZ_FRAMES=1000000 for the long run (docs/remoting.md,
    // "Fuzzing").
    long rounds = 20000;
    if (auto env = std::getenv("RMQ_FUZZ_FRAMES"))
      rounds = std::atol(env);
    MESSAGE(rounds << " frames");
    for (long round = 0; round < rounds; ++round) {
      auto frame = seeds[rng() % seeds.size()];
      auto edits = 1 + rng() % 4;
      for (unsigned e = 0; e < edits; ++e) {
        auto at = rng() % frame.size();
        switch (rng() % 3) {
          case 0:
            frame[at] = static_cast<char>(rng());
            break;
          case 1:
            frame.erase(at, 1 + rng() % 3);
            break;
          default:
            frame.insert(at, 1, static_cast<char>(rng()));
        }
        if (frame.empty())
          frame = seeds[0];
      }
      frame_reader r{4096};
      r.feed(frame);
      // Nothing past the limit is ever waited for.
      CHECK_LE(r.pending_frame() + 4, 4096u);
      while (auto cmd = r.next()) {
        ++decoded;
        // Whatever was decoded can be answered in either serialization
        // (invalid UTF-8 is replaced in JSON, not thrown on).
        for (auto how : {serialize_type::json, serialize_type::rocketmq}) {
          cmd->serialization = how;
          CHECK_NOTHROW(encode_frame(*cmd));
        }
      }
      if (r.failed())
        ++refused;
    }
    MESSAGE(decoded << " decoded, " << refused << " refused");
    CHECK_GT(decoded, 0);
    CHECK_GT(refused, 0);
  }
}
