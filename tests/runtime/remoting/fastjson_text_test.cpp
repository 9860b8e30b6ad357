// fastjson's bodies with objects as map keys, read as plain JSON.
#include "runtime/remoting/fastjson_text.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace rmq::remoting;

TEST_SUITE("runtime.remoting_fastjson_text") {
  TEST_CASE("object keys become their compact JSON text") {
    std::string err;
    auto x = read_fastjson(
      R"({"mqTable":{{"brokerName":"b","queueId":1,"topic":"T"}:{"commitOffset":7}},)"
      R"( "properties" : {"a":"1"}, "list":[1, 2.5, true, null, "s\"q"]})",
      err);
    REQUIRE_MESSAGE(x, err);
    auto& t = (*x)["mqTable"];
    REQUIRE_EQ(t.size(), 1u);
    CHECK_EQ(t.begin().key(), R"({"brokerName":"b","queueId":1,"topic":"T"})");
    CHECK_EQ(t.begin().value()["commitOffset"], 7);
    CHECK_EQ((*x)["properties"]["a"], "1");
    CHECK_EQ((*x)["list"],
             nlohmann::json::parse(R"([1,2.5,true,null,"s\"q"])"));
  }

  TEST_CASE("plain JSON reads as nlohmann reads it") {
    std::string err;
    auto text = R"({"a":[{},[]],"b":{"c":-1e3}})";
    auto x = read_fastjson(text, err);
    REQUIRE_MESSAGE(x, err);
    CHECK_EQ(*x, nlohmann::json::parse(text));
  }

  TEST_CASE("bad text is refused with where it stopped") {
    for (auto bad : {"", "{", "{\"a\":}", "{\"a\" 1}", "[1,]", "\"open", "{} x",
                     "{{\"k\":1}}", "tru"}) {
      CAPTURE(bad);
      std::string err;
      CHECK_FALSE(read_fastjson(bad, err));
      CHECK_NE(err.find("at byte"), std::string::npos);
    }
    // Nesting past the limit is refused, not recursed into.
    std::string deep(100000, '[');
    std::string err;
    CHECK_FALSE(read_fastjson(deep, err));
    CHECK_NE(err.find("too deep"), std::string::npos);
  }
}
