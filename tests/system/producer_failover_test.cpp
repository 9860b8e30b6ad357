// A producer process (rmq-admin sendMessage: a real producer actor sending
// sync in a loop) against two NameServers and two brokers; broker-b is
// killed with SIGKILL mid-stream. Every send either succeeds (on the other
// broker) or fails with an error, none hangs, and every message reported
// sent is stored: after broker-b comes back, each reported msgId is found
// on one of the brokers by its UNIQ_KEY.
#include <chrono>
#include <csignal>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicFailover";
constexpr int32_t queues = 4;
constexpr int sends = 3000;

// One output line of sendMessage: broker, queue, status, msgId, ...
struct send_line {
  std::string broker;
  std::string status;
  std::string msg_id;
};

send_line parse_line(const std::string& line) {
  std::istringstream in{line};
  send_line out;
  std::string qid;
  in >> out.broker >> qid >> out.status >> out.msg_id;
  return out;
}

// The UNIQ_KEYs of every message in `topic` on the broker.
std::set<std::string> stored_ids(remote_client& client,
                                 const broker_actor& front) {
  std::set<std::string> out;
  for (auto& rec : pull_records(client, front, topic, queues))
    if (auto id = find_property(rec.properties, property_uniq_key); !id.empty())
      out.insert(std::string{id});
  return out;
}

} // namespace

TEST_SUITE("system.producer.failover") {
  TEST_CASE("SIGKILL of one broker mid-stream: every send is stored on the "
            "other broker or reported failed, and nothing reported sent is "
            "lost") {
    temp_dir dir;
    auto ns1 = start_namesrv();
    auto ns2 = start_namesrv();
    std::vector<std::string> addrs{ns1.addr(), ns2.addr()};
    broker_launch how_a;
    how_a.name = "broker-a";
    how_a.namesrvs = addrs;
    how_a.store_dir = dir.path() + "/a";
    auto how_b = how_a;
    how_b.name = "broker-b";
    how_b.store_dir = dir.path() + "/b";
    auto a = start_broker_node(how_a);
    auto b = start_broker_node(how_b);
    remote_client client;
    auto front_a = connect_broker(client, a.port);
    auto front_b = connect_broker(client, b.port);
    create_topic(client, front_a, topic, queues);
    create_topic(client, front_b, topic, queues);
    const std::set<std::string> both{"broker-a", "broker-b"};
    REQUIRE(wait_until(
      [&] {
        return route_brokers(client, ns1.port, topic) == both
               && route_brokers(client, ns2.port, topic) == both;
      },
      10s));
    child_process producer{{bin_dir() + "/rmq-admin", "--namesrv",
                            addrs[0] + ";" + addrs[1], "--timeout-ms", "3000",
                            "sendMessage", "-t", topic, "-p", "failover body",
                            "-n", std::to_string(sends)},
                           true};
    REQUIRE(producer.started());
    std::vector<send_line> lines;
    std::string line;
    REQUIRE(producer.read_line(line)); // the header
    CHECK_EQ(line.rfind("#Broker Name", 0), 0);
    // A third of the way in, broker-b dies.
    while (lines.size() < sends / 3 && producer.read_line(line))
      lines.push_back(parse_line(line));
    REQUIRE_EQ(lines.size(), static_cast<size_t>(sends / 3));
    std::set<std::string> before_kill;
    for (auto& l : lines)
      before_kill.insert(l.broker);
    CHECK_EQ(before_kill, both); // sends were spread over both
    b.proc->signal(SIGKILL);
    CHECK_EQ(b.proc->wait(5s), 128 + SIGKILL);
    // Each send ends within its 3 s budget, so a line comes at least
    // every few seconds; read_line's bound catches a hang.
    while (producer.read_line(line, 10s))
      lines.push_back(parse_line(line));
    REQUIRE_EQ(lines.size(), static_cast<size_t>(sends));
    auto rc = producer.wait(10s);
    size_t ok = 0;
    size_t failed = 0;
    std::set<std::string> reported;
    for (auto& l : lines) {
      if (l.status == "SEND_OK") {
        ++ok;
        reported.insert(l.msg_id);
      } else {
        CHECK_EQ(l.status, "Failed");
        ++failed;
      }
    }
    MESSAGE("sent ", ok, ", failed ", failed);
    CHECK_EQ(reported.size(), ok); // every id unique
    CHECK_EQ(rc, failed == 0 ? 0 : 1);
    // With two retries on the other broker, failures are rare.
    CHECK_LT(failed, static_cast<size_t>(sends / 100));
    // After the kill, sends went to broker-a.
    std::set<std::string> after_kill;
    for (size_t i = sends / 3 + 50; i < lines.size(); ++i)
      if (lines[i].status == "SEND_OK")
        after_kill.insert(lines[i].broker);
    CHECK_EQ(after_kill, std::set<std::string>{"broker-a"});
    // broker-b comes back with what it acknowledged (SIGKILL keeps the
    // page cache), and every id reported sent is stored somewhere.
    restart_broker_node(b, how_b);
    front_b = connect_broker(client, b.port);
    // The last sends become readable a moment after their ack.
    size_t missing = reported.size();
    wait_until(
      [&] {
        auto stored = stored_ids(client, front_a);
        auto stored_b = stored_ids(client, front_b);
        stored.insert(stored_b.begin(), stored_b.end());
        missing = 0;
        for (auto& id : reported)
          if (stored.count(id) == 0)
            ++missing;
        return missing == 0;
      },
      10s);
    CHECK_EQ(missing, 0u);
  }
}
