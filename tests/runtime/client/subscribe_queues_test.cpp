// A topic's readable queues from its route (RocketMQ
// topicRouteData2TopicSubscribeInfo).
#include "runtime/client/subscribe_queues.hpp"

#include <doctest/doctest.h>

using namespace rmq;

namespace {

queue_data queues(const std::string& broker, int32_t read, int32_t write,
                  int32_t p) {
  queue_data q;
  q.broker_name = broker;
  q.read_queue_nums = read;
  q.write_queue_nums = write;
  q.perm = p;
  return q;
}

broker_data broker(const std::string& name, bool master) {
  broker_data b;
  b.broker_name = name;
  b.broker_addrs[master ? 0 : 1] = name + ":10911";
  return b;
}

} // namespace

TEST_SUITE("runtime.subscribe_queues") {
  TEST_CASE("readable queues of brokers with a master or a slave, sorted") {
    topic_route_data r;
    r.queue_datas
      = {queues("b", 2, 8, perm::read_write), queues("a", 3, 1, perm::read),
         queues("w", 4, 4, perm::write), queues("s", 4, 4, perm::read_write)};
    r.queue_datas.push_back(queues("gone", 2, 2, perm::read_write));
    r.broker_datas = {broker("b", true), broker("a", true), broker("w", true),
                      broker("s", false)};
    auto xs = subscribe_queues("T", r);
    // "s" has only its slave left: read there; "gone" has no node.
    std::vector<message_queue> expected{
      {"T", "a", 0}, {"T", "a", 1}, {"T", "a", 2}, {"T", "b", 0}, {"T", "b", 1},
      {"T", "s", 0}, {"T", "s", 1}, {"T", "s", 2}, {"T", "s", 3}};
    CHECK_EQ(xs, expected);
  }

  TEST_CASE("the master is read while it is there, else the lowest slave") {
    broker_data b;
    b.broker_name = "g";
    b.broker_addrs = {{2, "s2:1"}, {1, "s1:1"}, {0, "m:1"}};
    CHECK_EQ(subscribe_address(b), "m:1");
    CHECK_EQ(subscribe_address(b, true), "m:1");
    b.broker_addrs.erase(0);
    CHECK_EQ(subscribe_address(b), "s1:1");
    CHECK_EQ(subscribe_address(b, true), "");
    topic_route_data r;
    r.broker_datas = {b};
    CHECK_EQ(subscribe_address(r, "g"), "s1:1");
    CHECK_EQ(subscribe_address(r, "other"), "");
  }

  TEST_CASE("an empty route has no queues") {
    CHECK(subscribe_queues("T", topic_route_data{}).empty());
  }
}
