// rmq-admin consumeMessage against a real NameServer and broker: it prints
// every message sent, commits what it printed (a second run of the group
// prints nothing new) and stops after -c COUNT without committing past
// the last message it printed.
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

/// The bodies of the printed messages.
std::set<std::string> bodies(const std::string& out) {
  std::set<std::string> xs;
  for (auto pos = out.find(" body="); pos != std::string::npos;
       pos = out.find(" body=", pos + 1)) {
    auto begin = pos + 6;
    xs.insert(out.substr(begin, out.find('\n', begin) - begin));
  }
  return xs;
}

} // namespace

TEST_SUITE("system.admin") {
  TEST_CASE("rmq-admin consumeMessage refuses an invalid group") {
    auto ns = start_namesrv();
    for (auto group : {std::string{"g g"}, std::string(300, 'g')}) {
      auto res = run_admin(
        {"-n", ns.addr(), "consumeMessage", "-t", "TopicC", "-g", group});
      CHECK_EQ(res.rc, 1);
      CHECK_NE(res.out.find("rmq::invalid_parameter"), std::string::npos);
      CHECK_EQ(res.out.find("consumed 0"), std::string::npos);
    }
  }

  TEST_CASE("rmq-admin consumeMessage prints every message once per group "
            "and commits") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto n = ns.addr();
    auto a = start_broker_node(one_broker(ns, dir.path() + "/a"));
    remote_client client;
    auto front = connect_broker(client, a.port);
    create_routed_topic(client, front, ns.port, "TopicC", 4);
    constexpr int total = 20;
    std::set<std::string> sent;
    for (int i = 0; i < total; ++i) {
      auto body = "msg-" + std::to_string(i);
      auto res = send_plain(client, front, "TopicC", body, i % 4);
      REQUIRE_MESSAGE(res, describe(res.error()));
      sent.insert(body);
    }
    for (int32_t q = 0; q < 4; ++q)
      REQUIRE(wait_readable(client, front, "TopicC", q, total / 4));

    auto res = run_admin(
      {"-n", n, "consumeMessage", "-t", "TopicC", "-g", "G1", "-f", "first"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(count_of(res.out, "msgId="), size_t{total});
    CHECK_EQ(bodies(res.out), sent);
    CHECK(res.out.find("broker=broker-a queue=") != std::string::npos);
    CHECK(res.out.find("consumed 20 message(s)") != std::string::npos);

    // The offsets were committed: nothing new for the same group.
    res = run_admin(
      {"-n", n, "consumeMessage", "-t", "TopicC", "-g", "G1", "-f", "first"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(count_of(res.out, "msgId="), 0u);

    // -c stops after COUNT and commits only what it printed.
    res = run_admin({"-n", n, "consumeMessage", "-t", "TopicC", "-g", "G2",
                     "-f", "first", "-c", "3"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(count_of(res.out, "msgId="), 3u);
    auto first = bodies(res.out);
    res = run_admin(
      {"-n", n, "consumeMessage", "-t", "TopicC", "-g", "G2", "-f", "first"});
    CHECK_EQ(res.rc, 0);
    CHECK_EQ(count_of(res.out, "msgId="), size_t{total - 3});
    auto rest = bodies(res.out);
    rest.insert(first.begin(), first.end());
    CHECK_EQ(rest, sent);

    // A usage error: no group.
    res = run_admin({"-n", n, "consumeMessage", "-t", "TopicC"});
    CHECK_EQ(res.rc, 2);
  }
}
