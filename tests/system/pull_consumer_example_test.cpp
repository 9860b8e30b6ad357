// apps/examples/pull_consumer_example against a real NameServer and
// broker: subscribe mode prints every message once; assign mode with
// --seek reads only the given queue from the given offset.
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

constexpr const char* topic = "TopicPullExample";

} // namespace

TEST_SUITE("system.pull_consumer_example") {
  TEST_CASE("subscribe mode prints every message once; --assign with --seek "
            "reads one queue from an offset") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto broker = start_broker_node(one_broker(ns, dir.path() + "/a"));
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_routed_topic(client, front, ns.port, topic, 2);
    constexpr int n = 20;
    std::map<int32_t, int64_t> max_offsets;
    std::map<int32_t, std::vector<std::string>> by_queue;
    for (int i = 0; i < n; ++i) {
      auto body = "m" + std::to_string(i);
      auto res = send_plain(client, front, topic, body);
      REQUIRE_MESSAGE(res, client.sys.render(res.error()));
      max_offsets[res->queue_id] = std::max(max_offsets[res->queue_id],
                                            res->queue_offset + 1);
      by_queue[res->queue_id].push_back(body);
    }
    for (auto& [id, max] : max_offsets)
      REQUIRE(wait_readable(client, front, topic, id, max));
    std::vector<std::string> base{bin_dir() + "/pull_consumer_example",
                                  "--namesrv=" + ns.addr(),
                                  "--topic=" + std::string{topic}};
    SUBCASE("subscribe") {
      auto argv = base;
      argv.insert(argv.end(),
                  {"--group=CG-pull-example", "--count=" + std::to_string(n)});
      std::string out;
      REQUIRE(run_command(argv, out, 30s) == 0);
      std::multiset<std::string> bodies;
      for (auto& line : output_lines(out)) {
        auto colon = line.find(": ");
        REQUIRE(colon != std::string::npos);
        bodies.insert(line.substr(colon + 2));
      }
      CHECK(bodies.size() == static_cast<size_t>(n));
      for (int i = 0; i < n; ++i)
        CHECK(bodies.count("m" + std::to_string(i)) == 1);
    }
    SUBCASE("assign and seek") {
      auto q = max_offsets.begin()->first;
      auto& want = by_queue[q];
      REQUIRE(want.size() >= 2);
      auto argv = base;
      argv.insert(argv.end(), {"--group=CG-pull-assign",
                               "--assign=broker-a:" + std::to_string(q),
                               "--seek=1", "--idle-ms=1500"});
      std::string out;
      REQUIRE(run_command(argv, out, 30s) == 0);
      auto lines = output_lines(out);
      REQUIRE(lines.size() == want.size() - 1);
      for (size_t k = 0; k < lines.size(); ++k)
        CHECK(lines[k]
              == "broker-a:" + std::to_string(q) + " " + std::to_string(k + 1)
                   + ": " + want[k + 1]);
    }
  }
}
