// rmq-bench consume [--messages=1000000] [--seconds=2] [--store-dir=/tmp]
//                   [--namesrv=ADDR --broker=ADDR]
// Consume throughput through a push consumer (actors/client/consumer/consumer.hpp)
// in the bench process, from a topic pre-filled with 128 B messages on a
// broker the bench starts (one NameServer, one ASYNC_FLUSH broker) or on
// a running cluster (--namesrv, --broker: the topic is made there), next
// to the same-run CAF baseline: request/response with the broker
// process's echo actor, 32 messages' bytes per request (one pull's
// batch), 64 in flight. The topic is consumed twice, by two groups: with
// the push consumer's default pullBatchSize (256) and with RocketMQ's
// (32). One progress line a second while consuming; the target (issue
// #9) printed with PASS / MISS for the default.
#include <atomic>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/client/consumer/consumer.hpp"
#include "actors/client/producer/producer.hpp"
#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/common/errors.hpp"

namespace rmq::bench {

namespace {

constexpr int32_t topic_queues = 8;
constexpr size_t body_size = 128;
constexpr int pull_batch = 32;

std::string fmt(double x) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << x;
  return out.str();
}

} // namespace

int consume(int argc, char** argv) {
  int64_t messages = 1'000'000;
  int seconds = 2;
  cluster_flags where;
  option_parser flags{"rmq-bench consume"};
  flags.add("messages", messages, "messages to pre-fill and consume");
  flags.add("seconds", seconds, "duration of the baseline run");
  where.add_to(flags);
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (messages < 1 || seconds < 1) {
    std::cerr << "--messages and --seconds must be >= 1\n";
    return 2;
  }
  std::string topic = "BenchConsume";
  auto cl = where.start(topic, topic_queues);
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  auto& conn = cl->conn;
  std::cout << "# rmq-bench consume: " << messages << " messages of "
            << body_size << " B, topic " << topic << " (" << topic_queues
            << " queues), broker " << cl->broker_addr << '\n';
  auto base = run_load(
    sys, "baseline 32 x 128 B per request, 64 in flight", 64, seconds,
    echo_request(conn.echo, std::string(body_size * pull_batch, 'x'),
                 pull_batch));
  // Pre-fill through the auto-batching producer.
  auto p = cluster_producer(*cl, "BenchConsumeProducer");
  if (!p)
    return 1;
  std::atomic<int64_t> sent{0};
  std::atomic<int64_t> failed{0};
  client_message msg;
  msg.topic = topic;
  msg.body.assign(body_size, 'c');
  // One sync send first: the route and the connection are up before the
  // async ones queue behind them.
  if (auto r = p->send(msg); r) {
    ++sent;
  } else {
    ++failed;
    std::cerr << "first send failed: " << describe(r.error()) << '\n';
  }
  for (int64_t i = 1; i < messages; ++i)
    p->send_async(msg, [&](caf::expected<client_send_result> res) {
      ++(res ? sent : failed);
    });
  while (sent + failed < messages)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  p->shutdown();
  std::cout << "pre-filled " << sent << " messages (" << failed << " failed)\n";
  // Twice over the same pre-filled queues, each time as a new group from
  // the first offset: with the default pullBatchSize, then with
  // RocketMQ's (docs/consumer.md, "Pull size").
  struct figure {
    int64_t consumed = 0;
    double rate = 0;
  };
  auto run = [&](const std::string& group, int32_t batch) {
    push_consumer_config ccfg;
    ccfg.client.namesrv = cl->namesrv_addr;
    ccfg.group = group;
    ccfg.subscriptions = {{topic, "*"}};
    ccfg.from_where = consume_from_where::consume_from_first_offset;
    ccfg.pull_batch_size = batch;
    ccfg.consume_batch_max = pull_batch;
    std::atomic<int64_t> consumed{0};
    cpu_meter meter;
    meter.broker_pid = cl->broker_pid;
    meter.start();
    auto start = std::chrono::steady_clock::now();
    auto c = spawn_push_consumer(
      sys, ccfg,
      concurrent_listener{[&](const std::vector<received_message>& batch) {
        consumed += static_cast<int64_t>(batch.size());
        return consume_status::consume_success;
      }});
    if (!c) {
      std::cerr << "cannot start the consumer: " << describe(c.error()) << '\n';
      return figure{};
    }
    // Bench code, not an actor: wall-clock polling is fine here.
    auto last = start;
    auto deadline = start + std::chrono::seconds{120};
    while (consumed < sent && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds{10});
      auto now = std::chrono::steady_clock::now();
      if (now - last >= std::chrono::seconds{1}) {
        std::cout << "  consumed " << consumed << " / " << sent << '\n'
                  << std::flush;
        last = now;
      }
    }
    auto took
      = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
    meter.stop();
    c->shutdown();
    figure f{consumed, consumed / took};
    auto [cpu_broker, cpu_bench] = meter.per_msg_us(consumed);
    std::cout << "  push consumer, pullBatchSize " << batch << ", " << consumed
              << " messages in " << std::setprecision(3) << took << " s   "
              << fmt(f.rate) << " msgs/s ("
              << fmt(100 * f.rate / std::max(base.rate(), 1.0))
              << " % of baseline)\n"
              << "    CPU per message: broker " << std::fixed
              << std::setprecision(2) << cpu_broker
              << " us, consumer (this process) " << cpu_bench << " us; "
              << meter.text() << '\n';
    std::cout.unsetf(std::ios::fixed);
    return f;
  };
  auto default_batch = push_consumer_config{}.pull_batch_size;
  auto ours = run("BenchConsumeGroup", default_batch);
  auto rocketmq = run("BenchConsumeRocketMQPulls", pull_batch);
  std::cout << "  baseline (echo, 32 per request)    " << fmt(base.rate())
            << " msgs/s\n"
            << "  pullBatchSize " << default_batch << " (default)  "
            << fmt(ours.rate) << " msgs/s  >= 1,000,000 msgs/s  "
            << (ours.rate >= 1e6 ? "PASS" : "MISS") << '\n'
            << "  pullBatchSize " << pull_batch << " (RocketMQ's)  "
            << fmt(rocketmq.rate) << " msgs/s\n";
  return ours.consumed >= sent && rocketmq.consumed >= sent ? 0 : 1;
}

} // namespace rmq::bench
