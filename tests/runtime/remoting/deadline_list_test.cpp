// The deadlines a remoting server keeps for the requests in its hands.
#include "runtime/remoting/deadline_list.hpp"

#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

using namespace rmq::remoting;

TEST_SUITE("runtime.remoting_deadline_list") {
  TEST_CASE("what is due expires, earliest first; what is early stays") {
    deadline_list<int, std::string> d;
    d.add(30, "c");
    d.add(10, "a");
    d.add(20, "b");
    CHECK(d.expire(9).empty());
    CHECK_EQ(d.expire(20), std::vector<std::string>{"a", "b"});
    CHECK_EQ(d.size(), 1u);
    CHECK(d.expire(29).empty());
    CHECK_EQ(d.expire(100), std::vector<std::string>{"c"});
    CHECK_EQ(d.size(), 0u);
  }

  TEST_CASE("a request answered in time is taken back and never expires") {
    deadline_list<int, std::string> d;
    auto a = d.add(10, "a");
    auto b = d.add(10, "b");
    CHECK_EQ(d.take(a), std::optional<std::string>{"a"});
    CHECK_FALSE(d.take(a)); // taken once
    CHECK_EQ(d.expire(10), std::vector<std::string>{"b"});
    CHECK_FALSE(d.take(b)); // expired: the late answer finds nothing
  }

  TEST_CASE("equal deadlines keep their order and their own keys") {
    deadline_list<int, int> d;
    std::vector<deadline_list<int, int>::id_type> ids;
    for (int i = 0; i < 5; ++i)
      ids.push_back(d.add(7, i));
    CHECK_EQ(d.take(ids[2]), std::optional<int>{2});
    CHECK_EQ(d.expire(7), std::vector<int>{0, 1, 3, 4});
  }

  TEST_CASE("clear hands back everything") {
    deadline_list<int, int> d;
    d.add(1, 1);
    d.add(2, 2);
    CHECK_EQ(d.clear().size(), 2u);
    CHECK_EQ(d.size(), 0u);
    CHECK(d.expire(100).empty());
  }
}
