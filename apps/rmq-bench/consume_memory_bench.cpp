// rmq-bench consume-memory [--messages=12000] [--body-kib=64] [--seconds=10]
//                          [--store-dir=/tmp]
// What a slow push consumer holds: a topic of 4 queues pre-filled with
// large bodies, a consumer whose listener blocks (the slowest there is),
// and this process's resident memory while the consumer pulls until flow
// control stops it. Held against the documented bound: 4 queues x
// pullThresholdForQueue (1,000) messages x the body size, and printed as
// a ratio (docs/consumer.md, "Push consumer"). The target leaves room for
// what a message costs beyond its body: the allocator's size classes (a
// 64 KiB string takes 80 KiB) and the message's own fields.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "caf/scoped_actor.hpp"

#include "actors/client/consumer/consumer.hpp"
#include "actors/client/producer/producer.hpp"
#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/common/errors.hpp"

namespace rmq::bench {

namespace {

constexpr int32_t topic_queues = 4;

// This process's resident memory in KiB.
long own_rss_kib() {
  return rss_kib(::getpid()).first;
}

} // namespace

int consume_memory(int argc, char** argv) {
  int64_t messages = 12'000;
  int64_t body_kib = 64;
  int seconds = 10;
  cluster_flags where;
  option_parser flags{"rmq-bench consume-memory"};
  flags.add("messages", messages, "messages to pre-fill");
  flags.add("body-kib", body_kib, "body size in KiB");
  flags.add("seconds", seconds, "how long the blocked consumer is watched");
  where.add_to(flags);
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (messages < 1 || body_kib < 1 || body_kib > 1024 || seconds < 1) {
    std::cerr << "--messages, --seconds >= 1, --body-kib in 1..1024\n";
    return 2;
  }
  std::string topic = "BenchConsumeMemory";
  auto cl = where.start(topic, topic_queues);
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  auto body_size = static_cast<size_t>(body_kib) * 1024;
  std::cout << "# rmq-bench consume-memory: " << messages << " messages of "
            << body_kib << " KiB, topic " << topic << " (" << topic_queues
            << " queues), broker " << cl->broker_addr << '\n';
  {
    auto p = cluster_producer(*cl, "BenchConsumeMemoryProducer");
    if (!p)
      return 1;
    client_message msg;
    msg.topic = topic;
    // Bytes that do not compress: the stored size is the body size.
    msg.body.resize(body_size);
    uint32_t x = 12345;
    for (auto& c : msg.body) {
      x = x * 1103515245 + 12345;
      c = static_cast<char>(x >> 24);
    }
    int64_t failed = 0;
    for (int64_t i = 0; i < messages; ++i)
      if (!p->send(msg))
        ++failed;
    p->shutdown();
    std::cout << "pre-filled " << messages - failed << " messages (" << failed
              << " failed)\n";
  }
  auto before = own_rss_kib();
  push_consumer_config ccfg;
  ccfg.client.namesrv = cl->namesrv_addr;
  ccfg.group = "BenchConsumeMemoryGroup";
  ccfg.subscriptions = {{topic, "*"}};
  ccfg.from_where = consume_from_where::consume_from_first_offset;
  std::atomic<bool> release{false};
  std::atomic<int64_t> entered{0};
  auto c = spawn_push_consumer(
    sys, ccfg, concurrent_listener{[&](const std::vector<received_message>&) {
      ++entered;
      // Bench code on a consume worker: the slowest listener there is.
      while (!release)
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
      return consume_status::consume_success;
    }});
  if (!c) {
    std::cerr << "cannot start the consumer: " << describe(c.error()) << '\n';
    return 1;
  }
  long peak = before;
  auto deadline = std::chrono::steady_clock::now()
                  + std::chrono::seconds{seconds};
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
    peak = std::max(peak, own_rss_kib());
  }
  if (std::getenv("RMQ_BENCH_DUMP") != nullptr) {
    caf::scoped_actor self{sys};
    self->request(c->handle(), std::chrono::seconds{5}, dump_atom::value)
      .receive([](const std::string& text) { std::cout << text << '\n'; },
               [](const caf::error&) {});
  }
  release = true;
  c->shutdown();
  auto limits = ccfg.limits;
  auto per_queue = std::min<int64_t>(
    (limits.max_count + 1) * static_cast<int64_t>(body_size),
    limits.max_bytes + static_cast<int64_t>(body_size));
  auto bound_kib = topic_queues * per_queue / 1024;
  auto growth = peak - before;
  auto ratio = static_cast<double>(growth) / static_cast<double>(bound_kib);
  std::cout << std::fixed << std::setprecision(2)
            << "  resident before the consumer " << before / 1024
            << " MiB, peak " << peak / 1024 << " MiB, growth " << growth / 1024
            << " MiB (listener calls " << entered << ")\n"
            << "  bound: " << topic_queues << " queues x min("
            << limits.max_count << " messages, " << limits.max_bytes / 1048576
            << " MiB) of " << body_kib << " KiB bodies = " << bound_kib / 1024
            << " MiB\n"
            << "  growth / bound " << ratio << "  <= 1.5  "
            << (ratio <= 1.5 ? "PASS" : "MISS") << '\n';
  return 0;
}

} // namespace rmq::bench
