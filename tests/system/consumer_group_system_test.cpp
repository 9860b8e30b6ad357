// Consumer processes (push_consumer_example --print=ids) against two
// NameServers and two brokers, fed by a producer in the test process:
// a clustering group of two loses a member to SIGKILL midway and the
// survivor takes its queues over (nothing lost, duplicates reported);
// an orderly group keeps each key's order across a rebalance; two
// broadcasting members each get every message.
#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "actors/client/producer/producer.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/consumer_process.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

constexpr int32_t queues_per_broker = 4;

/// Two NameServers, two brokers, `topic` with four queues on each.
struct cluster {
  temp_dir dir;
  namesrv_process ns1 = start_namesrv();
  namesrv_process ns2 = start_namesrv();
  std::vector<broker_process> brokers;
  remote_client client;
  std::string namesrv;

  explicit cluster(const std::string& topic,
                   std::vector<std::string> broker_flags = {}) {
    namesrv = ns1.addr() + ";" + ns2.addr();
    for (std::string name : {"broker-a", "broker-b"}) {
      broker_launch how;
      how.name = name;
      how.namesrvs = {ns1.addr(), ns2.addr()};
      how.store_dir = dir.path() + "/" + name;
      how.extra = {"--disk-space-warning-level-ratio=1"};
      how.extra.insert(how.extra.end(), broker_flags.begin(),
                       broker_flags.end());
      brokers.push_back(start_broker_node(how));
      create_topic(client, connect_broker(client, brokers.back().port), topic,
                   queues_per_broker);
    }
    const std::set<std::string> both{"broker-a", "broker-b"};
    REQUIRE(wait_until(
      [&] {
        return route_brokers(client, ns1.port, topic) == both
               && route_brokers(client, ns2.port, topic) == both;
      },
      10s));
  }

  std::unique_ptr<consumer_proc> consumer(const std::string& topic,
                                          const std::string& group,
                                          std::vector<std::string> flags = {}) {
    std::vector<std::string> argv{bin_dir() + "/push_consumer_example",
                                  "--namesrv=" + namesrv,
                                  "--topic=" + topic,
                                  "--group=" + group,
                                  "--print=ids",
                                  "--from=first"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto out = std::make_unique<consumer_proc>(std::move(argv));
    REQUIRE(out->started());
    return out;
  }
};

producer_config producer_for(const cluster& c) {
  producer_config cfg;
  cfg.group = "PG_CONSUMER_SYSTEM";
  cfg.client.namesrv = c.namesrv;
  cfg.client.client_ip = "127.0.0.1";
  return cfg;
}

/// Sends `n` messages async; REQUIREs every send to succeed and answers
/// their msgIds.
std::vector<std::string> send_many(producer& p, const std::string& topic,
                                   int first, int n) {
  std::mutex mx;
  std::vector<std::string> ids;
  std::atomic<int> failed{0};
  for (int i = first; i < first + n; ++i) {
    client_message m;
    m.topic = topic;
    m.body = "body-" + std::to_string(i);
    p.send_async(m, [&](caf::expected<client_send_result> res) {
      std::lock_guard<std::mutex> guard{mx};
      if (res)
        ids.push_back(res->msg_id);
      else
        ++failed;
    });
  }
  REQUIRE(wait_until(
    [&] {
      std::lock_guard<std::mutex> guard{mx};
      return ids.size() + static_cast<size_t>(failed.load())
             == static_cast<size_t>(n);
    },
    20s));
  REQUIRE_EQ(failed.load(), 0);
  std::lock_guard<std::mutex> guard{mx};
  return ids;
}

/// How many of `ids` the consumers' lines hold, and the lines beyond one
/// per id (redeliveries).
struct coverage {
  size_t covered = 0;
  size_t duplicates = 0;
};

coverage cover(const std::set<std::string>& ids,
               const std::vector<std::vector<consumed>>& outputs) {
  std::map<std::string, size_t> seen;
  for (auto& out : outputs)
    for (auto& c : out)
      ++seen[c.msg_id];
  coverage res;
  for (auto& id : ids)
    if (auto i = seen.find(id); i != seen.end()) {
      ++res.covered;
      res.duplicates += i->second - 1;
    }
  return res;
}

} // namespace

TEST_SUITE("system.consumer_group") {
  TEST_CASE("clustering: a group of two consumer processes, one SIGKILLed "
            "midway; the survivor takes its queues over and every message "
            "is consumed at least once") {
    const std::string topic = "TopicGroupKill";
    cluster c{topic};
    auto p = spawn_producer(c.client.sys, producer_for(c));
    REQUIRE_MESSAGE(p, describe(p.error()));
    auto c1 = c.consumer(topic, "CG-kill");
    auto c2 = c.consumer(topic, "CG-kill");
    constexpr int total = 10000;
    constexpr int chunk = 500;
    std::set<std::string> ids;
    int sent = 0;
    auto send_chunk = [&] {
      for (auto& id : send_many(*p, topic, sent, chunk))
        ids.insert(id);
      sent += chunk;
    };
    // Until both members consume (both joined and split the queues).
    while (sent < total / 2 && (c1->size() == 0 || c2->size() == 0)) {
      send_chunk();
      wait_until([&] { return c1->size() > 0 && c2->size() > 0; }, 2s);
    }
    REQUIRE_GT(c1->size(), 0u);
    REQUIRE_GT(c2->size(), 0u);
    while (sent < total / 2)
      send_chunk();
    REQUIRE(wait_until(
      [&] {
        return cover(ids, {c1->lines(), c2->lines()}).covered >= ids.size() / 2;
      },
      20s));
    CHECK_EQ(c1->stop(SIGKILL), 128 + SIGKILL);
    auto c1_lines = c1->lines();
    std::set<std::string> c1_queues;
    for (auto& l : c1_lines)
      c1_queues.insert(l.broker + ":" + std::to_string(l.queue));
    while (sent < total)
      send_chunk();
    REQUIRE_EQ(ids.size(), size_t{total});
    coverage got;
    wait_until(
      [&] {
        got = cover(ids, {c1_lines, c2->lines()});
        return got.covered == ids.size();
      },
      30s);
    MESSAGE("consumed ", got.covered, " of ", ids.size(), ", duplicates ",
            got.duplicates, "; the killed member had consumed ",
            c1_lines.size(), " from ", c1_queues.size(), " queue(s)");
    CHECK_EQ(got.covered, ids.size());
    // The survivor consumed from every queue the dead member had.
    std::set<std::string> c2_queues;
    for (auto& l : c2->lines())
      c2_queues.insert(l.broker + ":" + std::to_string(l.queue));
    for (auto& q : c1_queues)
      CHECK_MESSAGE(c2_queues.count(q) == 1, q);
    CHECK_EQ(c2->stop(SIGTERM), 0);
    p->shutdown();
  }

  TEST_CASE("orderly: each key's messages stay in order per consumer across "
            "a member joining and a member SIGKILLed, and none is lost") {
    const std::string topic = "TopicGroupOrderly";
    // A dead member's locks expire in 2 s instead of 60 s, so the
    // survivor takes its queues over within the test's bounds.
    cluster c{topic, {"--rebalance-lock-max-live-time-ms=2000"}};
    auto p = spawn_producer(c.client.sys, producer_for(c));
    REQUIRE_MESSAGE(p, describe(p.error()));
    std::vector<std::string> flags{"--orderly", "--rebalance-interval-ms=300",
                                   "--lock-renew-interval-ms=300"};
    constexpr int keys = 20;
    constexpr int per_key = 100;
    std::set<std::string> ids;
    std::map<std::string, std::string> where;
    int round = 0;
    // One message of each key per round, ordered by the key's hash.
    auto send_rounds = [&](int until) {
      for (; round < until; ++round)
        for (int k = 0; k < keys; ++k) {
          client_message m;
          m.topic = topic;
          m.keys = "key-" + std::to_string(k);
          m.body = m.keys + "-" + std::to_string(round);
          auto res = p->send_ordered(m, select_by_hash, m.keys);
          REQUIRE_MESSAGE(res, describe(res.error()));
          ids.insert(res->msg_id);
          where[res->msg_id] = res->queue.broker_name + ":"
                               + std::to_string(res->queue.queue_id) + "@"
                               + std::to_string(res->queue_offset);
        }
    };
    auto c1 = c.consumer(topic, "CG-orderly", flags);
    send_rounds(per_key / 4);
    REQUIRE(wait_until([&] { return c1->size() > 0; }, 10s));
    // A second member joins: the group rebalances, c1 gives half up.
    auto c2 = c.consumer(topic, "CG-orderly", flags);
    send_rounds(per_key / 2);
    REQUIRE(wait_until([&] { return c2->size() > 0; }, 10s));
    CHECK_EQ(c1->stop(SIGKILL), 128 + SIGKILL);
    auto c1_lines = c1->lines();
    send_rounds(per_key);
    REQUIRE_EQ(ids.size(), size_t{keys * per_key});
    coverage got;
    wait_until(
      [&] {
        got = cover(ids, {c1_lines, c2->lines()});
        return got.covered == ids.size();
      },
      30s);
    MESSAGE("consumed ", got.covered, " of ", ids.size(), ", duplicates ",
            got.duplicates, "; the killed member had consumed ",
            c1_lines.size());
    CHECK_EQ(got.covered, ids.size());
    if (got.covered != ids.size()) {
      // Where the missing ones are, and how far each member got.
      std::set<std::string> seen;
      auto c2_now = c2->lines();
      std::map<std::string, int64_t> c1_max, c2_max;
      for (auto& l : c1_lines) {
        seen.insert(l.msg_id);
        auto& m = c1_max[l.broker + ":" + std::to_string(l.queue)];
        m = std::max(m, l.offset);
      }
      for (auto& l : c2_now) {
        seen.insert(l.msg_id);
        auto& m = c2_max[l.broker + ":" + std::to_string(l.queue)];
        m = std::max(m, l.offset);
      }
      for (auto& id : ids)
        if (seen.count(id) == 0)
          MESSAGE("missing ", where[id]);
      for (auto& [q, m] : c1_max)
        MESSAGE("killed member: ", q, " up to ", m);
      for (auto& [q, m] : c2_max)
        MESSAGE("survivor: ", q, " up to ", m);
    }
    // Per consumer, a key's queue offsets never go back, and a key stays
    // in one queue.
    std::map<std::string, std::string> queue_of;
    auto c2_lines = c2->lines();
    for (auto* out : {&c1_lines, &c2_lines}) {
      std::map<std::string, int64_t> last;
      for (auto& l : *out) {
        auto q = l.broker + ":" + std::to_string(l.queue);
        auto [at, fresh] = queue_of.emplace(l.keys, q);
        CHECK_MESSAGE(at->second == q, l.keys);
        if (auto i = last.find(l.keys); i != last.end())
          CHECK_MESSAGE(l.offset >= i->second, l.keys, " at ", q, ": ",
                        l.offset, " after ", i->second);
        last[l.keys] = l.offset;
      }
    }
    CHECK_EQ(queue_of.size(), size_t{keys});
    CHECK_EQ(c2->stop(SIGTERM), 0);
    p->shutdown();
  }

  TEST_CASE("broadcasting: two members each get every message") {
    const std::string topic = "TopicGroupBroadcast";
    cluster c{topic};
    auto p = spawn_producer(c.client.sys, producer_for(c));
    REQUIRE_MESSAGE(p, describe(p.error()));
    std::vector<std::string> flags{"--broadcast",
                                   "--offset-dir=" + c.dir.path() + "/offsets"};
    auto c1 = c.consumer(topic, "CG-broadcast", flags);
    auto c2 = c.consumer(topic, "CG-broadcast", flags);
    constexpr int total = 2000;
    auto sent = send_many(*p, topic, 0, total);
    std::set<std::string> ids{sent.begin(), sent.end()};
    REQUIRE_EQ(ids.size(), size_t{total});
    coverage got1, got2;
    wait_until(
      [&] {
        got1 = cover(ids, {c1->lines()});
        got2 = cover(ids, {c2->lines()});
        return got1.covered == ids.size() && got2.covered == ids.size();
      },
      30s);
    CHECK_EQ(got1.covered, ids.size());
    CHECK_EQ(got2.covered, ids.size());
    CHECK_EQ(got1.duplicates, 0u);
    CHECK_EQ(got2.duplicates, 0u);
    CHECK_EQ(c1->stop(SIGTERM), 0);
    CHECK_EQ(c2->stop(SIGTERM), 0);
    p->shutdown();
  }
}
