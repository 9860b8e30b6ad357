// A producer (spawn_producer_actor: the process's client instance and the
// send loop) against a whole in-process NameServer and broker node on the
// virtual clock (tests/actors/broker/broker_node_fixture.hpp): its group reaches
// the broker, sends, batches and auto-batched async sends are stored and
// can be pulled, and shutdown unregisters the group.
#include "actors/client/producer/producer.hpp"

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "tests/actors/client/node_client_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::node_client_fixture {
  producer_actor producer;

  fixture() {
    producer_config pcfg;
    pcfg.group = "PG";
    pcfg.client.namesrv = test::namesrv_addr;
    pcfg.client.client_ip = "10.1.1.1";
    pcfg.client.instance_name = "node";
    pcfg.client.directory = directory;
    auto p = spawn_producer_actor(sys, pcfg);
    REQUIRE(p);
    producer = *p;
    track(producer);
    sched.run();
  }

  static client_message msg(std::string body) {
    client_message m;
    m.topic = "TopicA";
    m.tags = "TagA";
    m.body = std::move(body);
    return m;
  }

  /// How many messages the broker holds in TopicA's queue `q`.
  int32_t stored(int32_t q) {
    auto req = pull_req("TopicA", 0);
    req.queue_id = q;
    req.max_msg_nums = 1000;
    return ask<pull_message_result>(node.pull, req).message_count;
  }

  int32_t stored_total() {
    int32_t n = 0;
    for (int32_t q = 0; q < 4; ++q)
      n += stored(q);
    return n;
  }
};

} // namespace

TEST_SUITE("client.producer_node") {
  TEST_CASE_FIXTURE(fixture, "sends and batches reach the broker's queues") {
    std::set<int32_t> queues;
    for (int i = 0; i < 4; ++i) {
      auto res = ask<client_send_result>(producer, send_atom::value,
                                         msg("m" + std::to_string(i)));
      CHECK_EQ(res.status, 0);
      CHECK_EQ(res.queue.broker_name, "broker-a");
      CHECK_EQ(res.entries.size(), 1u);
      queues.insert(res.queue.queue_id);
    }
    // Round robin over the four queues.
    CHECK_EQ(queues.size(), 4u);
    auto batch = ask<client_send_result>(
      producer, send_atom::value,
      std::vector<client_message>{msg("x"), msg("y"), msg("z")});
    REQUIRE_EQ(batch.entries.size(), 3u);
    CHECK_EQ(stored(batch.queue.queue_id), 4);
    CHECK_EQ(stored_total(), 7);
    // The broker is in a cached route now: the next heartbeat reaches it.
    advance_time(31s, 1s);
    auto groups = clients()["producer_groups"];
    REQUIRE_EQ(groups.size(), 1u);
    CHECK_EQ(groups[0]["group"], "PG");
  }

  TEST_CASE_FIXTURE(fixture, "concurrent async sends are auto-batched and "
                             "stored, one result each") {
    using handle = decltype(self->request(producer, caf::infinite,
                                          async_atom::value, msg("")));
    std::vector<handle> pending;
    for (int i = 0; i < 6; ++i)
      pending.push_back(self->request(producer, caf::infinite,
                                      async_atom::value,
                                      msg("a" + std::to_string(i))));
    sched.run();
    std::set<std::string> ids;
    for (auto& rh : pending)
      rh.receive([&](const client_send_result& res) { ids.insert(res.msg_id); },
                 [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(ids.size(), 6u);
    auto d
      = nlohmann::json::parse(ask<std::string>(producer, dump_atom::value));
    CHECK_GE(d["counters"]["batches"].get<int>(), 1);
    CHECK_EQ(d["counters"]["sent"], 6);
    CHECK_EQ(stored_total(), 6);
  }

  TEST_CASE_FIXTURE(fixture, "shutdown unregisters the group at the "
                             "broker") {
    ask<client_send_result>(producer, send_atom::value, msg("m"));
    advance_time(31s, 1s);
    REQUIRE_EQ(clients()["producer_groups"].size(), 1u);
    ask<caf::ok_atom>(producer, shutdown_atom::value);
    CHECK(clients()["producer_groups"].empty());
  }
}
