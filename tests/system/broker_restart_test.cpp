// A broker process with sync flush, stopped with SIGTERM and then killed
// with SIGKILL, each time restarted at once on its port: it keeps its
// topics, every acknowledged message and the consumer offsets it had
// persisted (SIGTERM persists them on the way out; under SIGKILL only what
// the 5 s flush wrote survives, as in RocketMQ, so the test waits for the
// file first).
#include <algorithm>
#include <chrono>
#include <csignal>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicKeep";
const std::string group = "GroupKeep";
constexpr int32_t queues = 2;

// What the test expects the broker to have.
struct expected_state {
  std::map<int32_t, std::vector<std::string>> bodies; // per queue
  std::map<int32_t, int64_t> offsets;                 // committed, per queue
  std::vector<topic_config> topics;                   // sorted by name
};

std::vector<topic_config> all_topics(remote_client& client,
                                     const broker_actor& front) {
  auto set = client.ask<topic_config_set>(front,
                                          get_all_topic_config_request{});
  REQUIRE_MESSAGE(set, describe(set.error()));
  auto out = set->topics;
  std::sort(out.begin(), out.end(),
            [](auto& x, auto& y) { return x.topic_name < y.topic_name; });
  return out;
}

// Sends `n` messages to each queue; keeps every acknowledged body.
void send_some(remote_client& client, const broker_actor& front,
               expected_state& want, int n, const std::string& round) {
  for (int32_t q = 0; q < queues; ++q)
    for (int i = 0; i < n; ++i) {
      auto body = round + "-q" + std::to_string(q) + "-" + std::to_string(i);
      auto sent = send_plain(client, front, topic, body, q);
      REQUIRE_MESSAGE(sent, describe(sent.error()));
      REQUIRE_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
      CHECK_EQ(sent->queue_id, q);
      CHECK_EQ(sent->queue_offset, static_cast<int64_t>(want.bodies[q].size()));
      want.bodies[q].push_back(body);
    }
}

void commit(remote_client& client, const broker_actor& front,
            expected_state& want, int32_t queue_id, int64_t offset) {
  auto ok = client.ask<caf::ok_atom>(
    front, update_offset_request{group, topic, queue_id, offset});
  REQUIRE_MESSAGE(ok, describe(ok.error()));
  want.offsets[queue_id] = offset;
}

// Whether <store>/config/consumerOffset.json holds `want.offsets`.
bool offsets_on_disk(const std::string& store, const expected_state& want) {
  auto doc = json_file::load(store + "/config/consumerOffset.json");
  if (!doc || !doc->is_object())
    return false;
  auto table = doc->find("offsetTable");
  if (table == doc->end() || !table->contains(topic + "@" + group))
    return false;
  auto& per_queue = (*table)[topic + "@" + group];
  for (auto& [q, offset] : want.offsets) {
    auto key = std::to_string(q);
    if (!per_queue.contains(key) || per_queue[key] != offset)
      return false;
  }
  return true;
}

void check_kept(remote_client& client, const broker_actor& front,
                const expected_state& want) {
  for (auto& [q, bodies] : want.bodies)
    REQUIRE(wait_readable(client, front, topic, q,
                          static_cast<int64_t>(bodies.size())));
  auto topics = all_topics(client, front);
  REQUIRE_EQ(topics.size(), want.topics.size());
  for (size_t i = 0; i < topics.size(); ++i) {
    CHECK_EQ(topics[i].topic_name, want.topics[i].topic_name);
    CHECK_EQ(topics[i].read_queue_nums, want.topics[i].read_queue_nums);
    CHECK_EQ(topics[i].write_queue_nums, want.topics[i].write_queue_nums);
    CHECK_EQ(topics[i].perm, want.topics[i].perm);
  }
  for (auto& [q, bodies] : want.bodies)
    CHECK_EQ(pull_all(client, front, topic, q), bodies);
  for (auto& [q, offset] : want.offsets) {
    auto got = client.ask<int64_t>(front, query_offset_request{group, topic, q,
                                                               false});
    REQUIRE_MESSAGE(got, describe(got.error()));
    CHECK_EQ(*got, offset);
  }
}

} // namespace

TEST_SUITE("system.broker.restart") {
  TEST_CASE("a sync-flush broker restarted after SIGTERM and after SIGKILL "
            "keeps topics, acknowledged messages and consumer offsets") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    how.flush = "SYNC_FLUSH";
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, topic, queues);
    create_topic(client, front, "TopicIdle", 3);
    expected_state want;
    send_some(client, front, want, 5, "first");
    commit(client, front, want, 0, 2);
    commit(client, front, want, 1, 5);
    want.topics = all_topics(client, front);

    // SIGTERM: unregistered, offsets persisted on the way out, exit 0.
    auto nsh = client.connect(ns.port);
    REQUIRE(nsh);
    broker.proc->signal(SIGTERM);
    CHECK_EQ(broker.proc->wait(), 0);
    CHECK(
      wait_until([&] { return !client.knows_broker(nsh, "broker-a"); }, 2s));
    CHECK(offsets_on_disk(how.store_dir, want));
    restart_broker_node(broker, how);
    front = connect_broker(client, broker.port);
    check_kept(client, front, want);

    // More of everything, then SIGKILL once the offset table's periodic
    // flush has written the new offsets.
    send_some(client, front, want, 3, "second");
    commit(client, front, want, 0, 7);
    commit(client, front, want, 1, 1);
    create_topic(client, front, "TopicLater", 1);
    want.topics = all_topics(client, front);
    CHECK(wait_until([&] { return offsets_on_disk(how.store_dir, want); }, 10s,
                     50ms));
    broker.proc->signal(SIGKILL);
    CHECK_EQ(broker.proc->wait(), 128 + SIGKILL);
    restart_broker_node(broker, how);
    front = connect_broker(client, broker.port);
    check_kept(client, front, want);
    // It takes new messages after the last one it had.
    send_some(client, front, want, 1, "third");
    check_kept(client, front, want);
  }

} // TEST_SUITE
