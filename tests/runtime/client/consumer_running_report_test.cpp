// A CAF client's ConsumerRunningInfo: the group's heartbeat data and the
// consumer actor's dump.
#include "runtime/client/consumer_running_report.hpp"

#include <doctest/doctest.h>

using namespace rmq;

TEST_SUITE("runtime.client_consumer_running_report") {
  consumer_data group() {
    consumer_data g;
    g.group_name = "CG";
    g.model = message_model::broadcasting;
    g.subscriptions.push_back({"T", "*", "TAG", {}, {}, 1});
    return g;
  }

  TEST_CASE("properties and subscriptions from the group") {
    auto r = consumer_running_report(group(), nullptr);
    CHECK_EQ(r.properties.at("consumerGroup"), "CG");
    CHECK_EQ(r.properties.at("messageModel"), "BROADCASTING");
    CHECK_EQ(r.properties.at("PROP_CONSUME_TYPE"), "CONSUME_PASSIVELY");
    CHECK_EQ(r.subscriptions.size(), 1u);
    CHECK(r.queues.empty());
    CHECK_EQ(r.properties.count("PROP_CONSUMEORDERLY"), 0u);
  }

  TEST_CASE("queues and settings from the consumer's dump") {
    auto dump = nlohmann::json::parse(R"({
      "actor": "push_consumer", "orderly": true, "workers": 20,
      "queues": [
        {"queue": {"topic": "T", "broker_name": "b", "queue_id": 2},
         "next_offset": 50, "commit_offset": 40, "count": 10,
         "bytes": 3145728, "locked": true},
        {"queue": {"topic": "T", "broker_name": "b", "queue_id": 3},
         "next_offset": 7, "commit_offset": 7, "count": 0, "bytes": 0},
        {"not a queue": 1}, 5
      ]})");
    auto r = consumer_running_report(group(), dump);
    CHECK_EQ(r.properties.at("PROP_CONSUMEORDERLY"), "true");
    CHECK_EQ(r.properties.at("PROP_THREADPOOL_CORE_SIZE"), "20");
    REQUIRE_EQ(r.queues.size(), 2u);
    auto& q = r.queues[0];
    CHECK_EQ(q.queue_id, 2);
    CHECK_EQ(q.broker_name, "b");
    CHECK_EQ(q.commit_offset, 40);
    CHECK_EQ(q.cached_count, 10);
    CHECK_EQ(q.cached_min_offset, 40);
    CHECK_EQ(q.cached_max_offset, 49);
    CHECK_EQ(q.cached_mib, 3);
    CHECK(q.locked);
    CHECK_EQ(r.queues[1].cached_max_offset, 0); // nothing cached
  }
}
