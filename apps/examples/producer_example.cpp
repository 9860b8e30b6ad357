// A program that sends messages through the producer API
// (actors/client/producer/producer.hpp): sync, async with callbacks, a batch, and
// ordered sends (one queue per key, in order per key).
//
// How to run (a NameServer and a broker on this machine, then this):
//   build/rmq-node --role=namesrv &
//   build/rmq-node --role=broker --namesrv=127.0.0.1:9886 --store-dir=/tmp/rmq-example-a &
//   build/producer_example --namesrv=127.0.0.1:9886 --topic=ExampleTopic
// The topic is created on first use (autoCreateTopicEnable); look at what
// was stored with
//   build/rmq-admin -n 127.0.0.1:9886 printMsg -t ExampleTopic
#include <atomic>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"

#include <rmq/errors.hpp>
#include <rmq/node_config.hpp>
#include <rmq/option_parser.hpp>
#include <rmq/producer.hpp>

namespace {

void print(const char* what, const caf::expected<rmq::client_send_result>& r) {
  if (!r) {
    std::cout << what << ": failed: " << rmq::describe(r.error()) << '\n';
    return;
  }
  std::cout << what << ": "
            << rmq::to_string(static_cast<rmq::send_status>(r->status))
            << " msgId=" << r->msg_id << " broker=" << r->queue.broker_name
            << " queue=" << r->queue.queue_id << " offset=" << r->queue_offset
            << '\n';
}

} // namespace

int main(int argc, char** argv) {
  std::string namesrv = "127.0.0.1:9886";
  std::string topic = "ExampleTopic";
  rmq::option_parser opts{"producer_example"};
  opts.add("namesrv", namesrv, "NameServer list, host:port;host:port");
  opts.add("topic", topic, "topic to send to");
  if (auto rc = opts.parse(argc, argv); rc >= 0)
    return rc;
  rmq::node_config cfg; // registers rmq's message types
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return 1;
  }
  caf::actor_system sys{cfg};
  rmq::producer_config pcfg;
  pcfg.group = "ExampleProducerGroup";
  pcfg.client.namesrv = namesrv;
  auto producer = rmq::spawn_producer(sys, pcfg);
  if (!producer) {
    std::cerr << "cannot start: " << rmq::describe(producer.error()) << '\n';
    return 1;
  }
  int failures = 0;
  auto check = [&](const char* what, auto&& res) {
    print(what, res);
    failures += res ? 0 : 1;
  };

  // 1. Sync: returns once the broker stored it (or every retry failed).
  rmq::client_message msg;
  msg.topic = topic;
  msg.tags = "TagA";
  msg.keys = "order-1";
  msg.body = "hello from a sync send";
  check("sync", producer->send(msg));

  // 2. Async: the callback runs on a scheduler thread when the answer is
  // in; concurrent async sends to one broker travel as one batch.
  constexpr int async_count = 100;
  std::mutex mx;
  std::condition_variable cv;
  int done = 0;
  std::atomic<int> async_failed{0};
  for (int i = 0; i < async_count; ++i) {
    rmq::client_message m = msg;
    m.body = "async message " + std::to_string(i);
    producer->send_async(std::move(m),
                         [&](caf::expected<rmq::client_send_result> r) {
                           if (!r)
                             ++async_failed;
                           std::lock_guard<std::mutex> guard{mx};
                           if (++done == async_count)
                             cv.notify_one();
                         });
  }
  {
    std::unique_lock<std::mutex> guard{mx};
    cv.wait(guard, [&] { return done == async_count; });
  }
  std::cout << "async: " << async_count - async_failed << " of " << async_count
            << " stored\n";
  failures += async_failed;

  // 3. A batch: one request, stored together in one queue.
  std::vector<rmq::client_message> batch;
  for (int i = 0; i < 10; ++i) {
    rmq::client_message m = msg;
    m.body = "batch message " + std::to_string(i);
    batch.push_back(std::move(m));
  }
  check("batch", producer->send_batch(batch));

  // 4. Ordered: every message of one order id goes to the same queue, so a
  // consumer sees them in this order.
  for (int order = 0; order < 3; ++order)
    for (const char* step : {"created", "paid", "shipped"}) {
      rmq::client_message m = msg;
      m.keys = "order-" + std::to_string(order);
      m.body = m.keys + " " + step;
      check("ordered", producer->send_ordered(m, rmq::select_by_hash, m.keys));
    }

  producer->shutdown();
  return failures == 0 ? 0 : 1;
}
