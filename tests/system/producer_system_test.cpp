// The producer facade over real loopback TCP against real rmq-node
// NameServer and broker processes: sync, batch and async sends are stored
// and can be pulled, a topic nobody created yet is created by the broker
// through TBW102, and when one of two brokers is killed the sends go on
// on the other.
#include <atomic>
#include <chrono>
#include <csignal>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "actors/client/producer/producer.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicProducer";

broker_launch launch(const std::string& name, const std::string& store,
                     const std::string& namesrv) {
  broker_launch how;
  how.name = name;
  how.namesrvs = {namesrv};
  how.store_dir = store;
  return how;
}

producer_config config_for(const std::string& namesrv) {
  producer_config cfg;
  cfg.group = "PG_SYSTEM";
  cfg.client.namesrv = namesrv;
  cfg.client.client_ip = "127.0.0.1";
  return cfg;
}

client_message msg(std::string body, std::string to = topic) {
  client_message m;
  m.topic = std::move(to);
  m.tags = "TagA";
  m.body = std::move(body);
  return m;
}

size_t stored(remote_client& client, const broker_actor& front,
              const std::string& name) {
  size_t n = 0;
  for (int32_t q = 0; q < 4; ++q)
    n += pull_all(client, front, name, q).size();
  return n;
}

} // namespace

TEST_SUITE("system.producer") {
  TEST_CASE("sync, batch and async sends reach a real broker; a new topic "
            "is created through TBW102") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto a
      = start_broker_node(launch("broker-a", dir.path() + "/a", ns.addr()));
    remote_client client;
    auto front = connect_broker(client, a.port);
    create_topic(client, front, topic, 4);
    REQUIRE(wait_until(
      [&] {
        return route_brokers(client, ns.port, topic)
               == std::set<std::string>{"broker-a"};
      },
      5s));
    auto p = spawn_producer(client.sys, config_for(ns.addr()));
    REQUIRE_MESSAGE(p, describe(p.error()));
    for (int i = 0; i < 8; ++i) {
      auto res = p->send(msg("sync-" + std::to_string(i)));
      REQUIRE_MESSAGE(res, describe(res.error()));
      CHECK_EQ(res->queue.broker_name, "broker-a");
    }
    auto batch = p->send_batch({msg("b0"), msg("b1"), msg("b2")});
    REQUIRE_MESSAGE(batch, describe(batch.error()));
    CHECK_EQ(batch->entries.size(), 3u);
    constexpr int n = 200;
    std::atomic<int> ok{0};
    std::atomic<int> failed{0};
    for (int i = 0; i < n; ++i)
      p->send_async(msg("async-" + std::to_string(i)),
                    [&](caf::expected<client_send_result> res) {
                      if (res)
                        ++ok;
                      else
                        ++failed;
                    });
    CHECK(wait_until([&] { return ok + failed == n; }, 10s));
    CHECK_EQ(ok.load(), n);
    CHECK(wait_until(
      [&] { return stored(client, front, topic) == size_t{8 + 3 + n}; }, 5s));
    // No route for it yet: sent over TBW102's brokers, created there.
    auto fresh = p->send(msg("first", "TopicFresh"));
    REQUIRE_MESSAGE(fresh, describe(fresh.error()));
    CHECK_EQ(fresh->queue.broker_name, "broker-a");
    CHECK(
      wait_until([&] { return stored(client, front, "TopicFresh") == 1; }, 5s));
    p->shutdown();
  }

  TEST_CASE("one of two brokers killed: the sends go on on the other") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto a
      = start_broker_node(launch("broker-a", dir.path() + "/a", ns.addr()));
    auto b
      = start_broker_node(launch("broker-b", dir.path() + "/b", ns.addr()));
    remote_client client;
    create_topic(client, connect_broker(client, a.port), topic, 4);
    create_topic(client, connect_broker(client, b.port), topic, 4);
    REQUIRE(wait_until(
      [&] {
        return route_brokers(client, ns.port, topic)
               == std::set<std::string>{"broker-a", "broker-b"};
      },
      5s));
    auto p = spawn_producer(client.sys, config_for(ns.addr()));
    REQUIRE_MESSAGE(p, describe(p.error()));
    std::set<std::string> used;
    for (int i = 0; i < 8; ++i) {
      auto res = p->send(msg("before-" + std::to_string(i)));
      REQUIRE_MESSAGE(res, describe(res.error()));
      used.insert(res->queue.broker_name);
    }
    CHECK_EQ(used.size(), 2u);
    b.proc->signal(SIGKILL);
    CHECK_EQ(b.proc->wait(), 128 + SIGKILL);
    for (int i = 0; i < 8; ++i) {
      auto res = p->send(msg("after-" + std::to_string(i)));
      REQUIRE_MESSAGE(res, describe(res.error()));
      CHECK_EQ(res->queue.broker_name, "broker-a");
    }
    p->shutdown();
  }
}
