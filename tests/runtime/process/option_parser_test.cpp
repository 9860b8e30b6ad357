#include "runtime/process/option_parser.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace {

struct fixture {
  std::string topic = "default";
  int count = 1;
  bool verbose = false;
  int64_t offset = -1;
  rmq::option_parser parser{"test", true};

  fixture() {
    parser.add("topic,t", topic, "topic name")
      .add("count,n", count, "how many")
      .add("verbose,v", verbose, "talk more")
      .add("offset", offset, "where to start");
  }
};

} // namespace

TEST_SUITE("runtime.option_parser") {
  TEST_CASE_FIXTURE(fixture, "every spelling of an option sets the variable") {
    for (auto args : std::vector<std::vector<std::string>>{
           {"--topic", "T1", "--count", "5"},
           {"--topic=T1", "--count=5"},
           {"-t", "T1", "-n", "5"},
           {"-tT1", "-n5"}}) {
      topic = "default";
      count = 1;
      CHECK_EQ(parser.try_parse(args), "");
      CHECK_EQ(topic, "T1");
      CHECK_EQ(count, 5);
      CHECK(parser.given("topic"));
    }
  }

  TEST_CASE_FIXTURE(fixture, "defaults stay when an option is absent") {
    CHECK_EQ(parser.try_parse({"--count=3"}), "");
    CHECK_EQ(topic, "default");
    CHECK_FALSE(parser.given("topic"));
    CHECK_EQ(offset, -1);
  }

  TEST_CASE_FIXTURE(fixture, "flags take no value and leave the next word") {
    CHECK_EQ(parser.try_parse({"-v", "updateTopic", "--offset", "-7"}), "");
    CHECK(verbose);
    CHECK_EQ(offset, -7);
    CHECK_EQ(parser.positional(), std::vector<std::string>{"updateTopic"});
  }

  TEST_CASE_FIXTURE(fixture, "a flag is set with =true and cleared with "
                             "=false") {
    CHECK_EQ(parser.try_parse({"--verbose=true"}), "");
    CHECK(verbose);
    CHECK_EQ(parser.try_parse({"--verbose=false"}), "");
    CHECK_FALSE(verbose);
    CHECK(parser.given("verbose"));
    CHECK_NE(parser.try_parse({"--verbose=maybe"}), "");
  }

  TEST_CASE_FIXTURE(fixture, "an empty value is an empty string") {
    CHECK_EQ(parser.try_parse({"--topic="}), "");
    CHECK_EQ(topic, "");
  }

  TEST_CASE_FIXTURE(fixture, "values may contain spaces and separators") {
    CHECK_EQ(parser.try_parse({"-t", "a b;c:d"}), "");
    CHECK_EQ(topic, "a b;c:d");
  }

  TEST_CASE_FIXTURE(fixture, "bad input is a usage error naming the argument") {
    CHECK_NE(parser.try_parse({"--nope=1"}).find("--nope"), std::string::npos);
    CHECK_NE(parser.try_parse({"--count=x"}).find("count"), std::string::npos);
    CHECK_NE(parser.try_parse({"--count"}), "");
    CHECK_EQ(parser.try_parse({"--help"}), "help");
  }

  TEST_CASE("without positional arguments a stray word is an error") {
    int n = 0;
    rmq::option_parser p{"strict"};
    p.add("n", n, "a number");
    CHECK_NE(p.try_parse({"word"}).find("word"), std::string::npos);
  }

} // TEST_SUITE
