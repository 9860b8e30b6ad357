// A push consumer in the test process against a real NameServer and
// broker: the rebalance service gives it every queue, it consumes every
// message sent exactly once in clustering mode and commits on shutdown,
// so a second consumer of the group gets none.
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "actors/client/consumer/consumer.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

constexpr const char* topic = "TopicPush";
constexpr int32_t queue_count = 4;

/// What a listener saw, shared with its worker threads.
struct seen {
  std::mutex mx;
  std::multiset<std::string> bodies;

  size_t size() {
    std::lock_guard<std::mutex> guard{mx};
    return bodies.size();
  }
};

nlohmann::json dump(remote_client& client, const push_consumer& c) {
  auto text = client.ask<std::string>(c.handle(), dump_atom::value);
  return text ? nlohmann::json::parse(*text) : nlohmann::json::object();
}

} // namespace

TEST_SUITE("system.push_consumer") {
  TEST_CASE("a push consumer consumes every message once and commits; the "
            "group's next consumer gets none") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto broker = start_broker_node(one_broker(ns, dir.path() + "/a"));
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_routed_topic(client, front, ns.port, topic, queue_count);
    constexpr int n = 40;
    std::map<int32_t, int64_t> max_offsets;
    for (int i = 0; i < n; ++i) {
      auto res = send_plain(client, front, topic, "m" + std::to_string(i));
      REQUIRE_MESSAGE(res, client.sys.render(res.error()));
      max_offsets[res->queue_id] = std::max(max_offsets[res->queue_id],
                                            res->queue_offset + 1);
    }
    for (auto& [id, max] : max_offsets)
      REQUIRE(wait_readable(client, front, topic, id, max));
    push_consumer_config cfg;
    cfg.client.namesrv = ns.addr();
    cfg.client.instance_name = "push-system";
    cfg.group = "CG-push";
    cfg.subscriptions = {{topic, "*"}};
    cfg.from_where = consume_from_where::consume_from_first_offset;
    cfg.consume_threads = 3;
    seen first;
    auto c1 = spawn_push_consumer(
      client.sys, cfg, [&](const std::vector<received_message>& batch) {
        std::lock_guard<std::mutex> guard{first.mx};
        for (auto& m : batch)
          first.bodies.insert(m.body);
        return consume_status::consume_success;
      });
    REQUIRE_MESSAGE(c1, client.sys.render(c1.error()));
    REQUIRE(wait_until([&] { return first.size() >= n; }, 20s));
    {
      std::lock_guard<std::mutex> guard{first.mx};
      CHECK_EQ(first.bodies.size(), size_t{n});
      for (int i = 0; i < n; ++i)
        CHECK_EQ(first.bodies.count("m" + std::to_string(i)), 1u);
    }
    c1->shutdown();
    // The broker has the group's offsets at each queue's end.
    for (auto& [id, max] : max_offsets) {
      query_offset_request q;
      q.consumer_group = cfg.group;
      q.topic = topic;
      q.queue_id = id;
      auto off = client.ask<int64_t>(front, q);
      REQUIRE_MESSAGE(off, client.sys.render(off.error()));
      CHECK_EQ(*off, max);
    }
    // The next consumer of the group starts at the committed offsets.
    seen second;
    auto c2 = spawn_push_consumer(
      client.sys, cfg, [&](const std::vector<received_message>& batch) {
        std::lock_guard<std::mutex> guard{second.mx};
        for (auto& m : batch)
          second.bodies.insert(m.body);
        return consume_status::consume_success;
      });
    REQUIRE(c2);
    // Its queues of the topic (the group's retry topic has its own).
    auto own = [&] {
      auto qs = nlohmann::json::array();
      auto d = dump(client, *c2);
      if (d.contains("queues"))
        for (auto& q : d["queues"])
          if (q["queue"]["topic"] == topic)
            qs.push_back(q);
      return qs;
    };
    auto all_started = [&] {
      auto qs = own();
      if (qs.size() != queue_count)
        return false;
      for (auto& q : qs)
        if (!q["started"].get<bool>() || q["pulls"].get<int64_t>() < 1)
          return false;
      return true;
    };
    REQUIRE_MESSAGE(wait_until(all_started, 10s), dump(client, *c2).dump());
    for (auto& q : own()) {
      auto id = q["queue"]["queue_id"].get<int32_t>();
      CHECK_EQ(q["next_offset"].get<int64_t>(), max_offsets[id]);
      CHECK_EQ(q["pulled"].get<int64_t>(), 0);
    }
    CHECK_EQ(second.size(), 0u);
    c2->shutdown();
  }
}
