// A topic's route into the queues a producer writes to (RocketMQ
// topicRouteData2TopicPublishInfo) and the TBW102 fallback.
#include "runtime/client/publish_queues.hpp"

#include <doctest/doctest.h>

using namespace rmq;

namespace {

broker_data broker(const std::string& name, bool with_master = true) {
  broker_data bd;
  bd.cluster = "C";
  bd.broker_name = name;
  if (with_master)
    bd.broker_addrs[0] = name + ":10911";
  bd.broker_addrs[1] = name + "-slave:10911";
  return bd;
}

queue_data queues_of(const std::string& name, int32_t nums,
                     int32_t p = perm::read_write, int32_t read_nums = -1) {
  return queue_data{name, read_nums < 0 ? nums : read_nums, nums, p, 0};
}

std::vector<message_queue> mqs(const std::string& topic,
                               std::vector<std::pair<std::string, int>> xs) {
  std::vector<message_queue> result;
  for (auto& [b, n] : xs)
    for (int i = 0; i < n; ++i)
      result.push_back(message_queue{topic, b, i});
  return result;
}

bool same(const std::vector<message_queue>& x,
          const std::vector<message_queue>& y) {
  if (x.size() != y.size())
    return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] < y[i] || y[i] < x[i])
      return false;
  return true;
}

} // namespace

TEST_SUITE("runtime.publish_queues") {
  TEST_CASE("write queues of each broker, sorted by broker then id") {
    topic_route_data r;
    r.queue_datas = {queues_of("b", 2), queues_of("a", 3, perm::read_write, 8)};
    r.broker_datas = {broker("a"), broker("b")};
    CHECK(same(publish_queues("T", r), mqs("T", {{"a", 3}, {"b", 2}})));
  }

  TEST_CASE("without write permission a broker has no queues") {
    topic_route_data r;
    r.queue_datas = {queues_of("a", 2, perm::read),
                     queues_of("b", 2, perm::write),
                     queues_of("c", 2, perm::read | perm::inherit)};
    r.broker_datas = {broker("a"), broker("b"), broker("c")};
    CHECK(same(publish_queues("T", r), mqs("T", {{"b", 2}})));
  }

  TEST_CASE("a broker without master or broker data has no queues") {
    topic_route_data r;
    r.queue_datas = {queues_of("a", 2), queues_of("b", 2), queues_of("x", 2)};
    r.broker_datas = {broker("a", false), broker("b")};
    CHECK(same(publish_queues("T", r), mqs("T", {{"b", 2}})));
    CHECK_EQ(master_address(r, "b"), "b:10911");
    CHECK_EQ(master_address(r, "a"), "");
    CHECK_EQ(master_address(r, "x"), "");
  }

  TEST_CASE("an order config lists the queues in its own order") {
    topic_route_data r;
    r.order_topic_conf = "b:2;a:1";
    // Ignored with an order config, as in RocketMQ.
    r.queue_datas = {queues_of("c", 4)};
    r.broker_datas = {broker("c")};
    CHECK(same(publish_queues("T", r), mqs("T", {{"b", 2}, {"a", 1}})));
  }

  TEST_CASE("malformed order config entries are skipped") {
    topic_route_data r;
    r.order_topic_conf = "b:2;;nonum;:3;a:x;a:1;c:2z;";
    CHECK(same(publish_queues("T", r), mqs("T", {{"b", 2}, {"a", 1}})));
  }

  TEST_CASE("no route, no queues") {
    CHECK(publish_queues("T", topic_route_data{}).empty());
  }

  TEST_CASE("TBW102 fallback: the default route's brokers, capped") {
    topic_route_data r;
    r.queue_datas = {queues_of("a", 8), queues_of("b", 2),
                     queues_of("c", 8, perm::read_write, 3),
                     queues_of("d", 8, perm::read)};
    r.broker_datas = {broker("a"), broker("b"), broker("c"), broker("d")};
    auto got = default_publish_queues("New", r, 4);
    CHECK(same(got, mqs("New", {{"a", 4}, {"b", 2}, {"c", 3}})));
    CHECK(same(default_publish_queues("New", r, 16),
               mqs("New", {{"a", 8}, {"b", 2}, {"c", 3}})));
  }
}
