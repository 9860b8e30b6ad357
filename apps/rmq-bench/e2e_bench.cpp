// rmq-bench e2e [--seconds=3] [--rate=10000] [--store-dir=/tmp]
// Produce -> consume latency in one process: an auto-batching producer and
// a push consumer on a broker the bench starts (one NameServer, one
// ASYNC_FLUSH broker). Each 128 B body carries its send time (steady
// clock, ns); the listener takes the difference. Two runs: a fixed light
// rate (--rate, paced sends) and full speed (async sends as fast as the
// producer's back-pressure lets them). p50 / p99 / p999 per run, a
// progress line a second, and the target (issue #9) with PASS / MISS.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/client/consumer.hpp"
#include "actors/client/producer.hpp"
#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/errors.hpp"

namespace rmq::bench {

namespace {

const std::string topic = "BenchE2E";
constexpr int32_t topic_queues = 8;
constexpr size_t body_size = 128;
using clock_type = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           clock_type::now().time_since_epoch())
    .count();
}

/// Latencies (us) the listener records.
struct samples {
  std::mutex mx;
  std::vector<double> us;
  std::atomic<int64_t> count{0};
};

struct run_result {
  int64_t sent = 0;
  int64_t consumed = 0;
  double p50 = 0, p99 = 0, p999 = 0;
};

// Sends for `seconds` (paced at `rate`, or unpaced when 0), waits for the
// consumer, answers the latency percentiles.
run_result run(producer& p, samples& s, int seconds, int64_t rate,
               const std::string& label) {
  {
    std::lock_guard<std::mutex> guard{s.mx};
    s.us.clear();
  }
  auto base = s.count.load();
  client_message msg;
  msg.topic = topic;
  msg.body.assign(body_size, 'e');
  std::atomic<int64_t> failed{0};
  int64_t sent = 0;
  auto start = clock_type::now();
  auto end = start + std::chrono::seconds{seconds};
  auto last = start;
  // Bench code, not an actor: it paces with the wall clock.
  while (clock_type::now() < end) {
    if (rate > 0) {
      auto due = start + std::chrono::nanoseconds{sent * 1'000'000'000 / rate};
      std::this_thread::sleep_until(due);
    }
    auto t = now_ns();
    std::memcpy(msg.body.data(), &t, sizeof(t));
    p.send_async(msg, [&failed](caf::expected<client_send_result> res) {
      if (!res)
        ++failed;
    });
    ++sent;
    if (clock_type::now() - last >= std::chrono::seconds{1}) {
      last = clock_type::now();
      std::cout << "  " << label << ": sent " << sent << ", consumed "
                << s.count - base << '\n'
                << std::flush;
    }
  }
  auto deadline = clock_type::now() + std::chrono::seconds{30};
  while (s.count - base + failed < sent && clock_type::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  run_result r;
  r.sent = sent;
  r.consumed = s.count - base;
  std::lock_guard<std::mutex> guard{s.mx};
  std::sort(s.us.begin(), s.us.end());
  if (!s.us.empty()) {
    r.p50 = percentile(s.us, 0.5);
    r.p99 = percentile(s.us, 0.99);
    r.p999 = percentile(s.us, 0.999);
  }
  return r;
}

void print(const std::string& what, const run_result& r, int seconds) {
  std::cout << "  " << std::left << std::setw(28) << what << std::right
            << r.consumed << " / " << r.sent << " consumed (" << std::fixed
            << std::setprecision(0) << static_cast<double>(r.sent) / seconds
            << " msgs/s sent), p50 " << r.p50 << " / p99 " << r.p99
            << " / p999 " << r.p999 << " us";
}

} // namespace

int e2e(int argc, char** argv) {
  int seconds = 3;
  int64_t rate = 10'000;
  std::string store_dir = "/tmp";
  option_parser flags{"rmq-bench e2e"};
  flags.add("seconds", seconds, "duration of each run");
  flags.add("rate", rate, "messages per second of the light run");
  flags.add("store-dir", store_dir,
            "where the started broker's temporary store dir is made");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (seconds < 1 || rate < 1) {
    std::cerr << "--seconds and --rate must be >= 1\n";
    return 2;
  }
  auto cl = start_cluster(store_dir, topic, topic_queues);
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  producer_config pcfg;
  pcfg.group = "BenchE2EProducer";
  pcfg.client.namesrv = cl->ns->address;
  auto p = spawn_producer(sys, pcfg);
  if (!p) {
    std::cerr << "cannot start the producer: " << describe(p.error()) << '\n';
    return 1;
  }
  samples s;
  push_consumer_config ccfg;
  ccfg.client.namesrv = cl->ns->address;
  ccfg.group = "BenchE2EGroup";
  ccfg.subscriptions = {{topic, "*"}};
  ccfg.from_where = consume_from_where::consume_from_first_offset;
  ccfg.consume_batch_max = 32;
  auto c = spawn_push_consumer(
    sys, ccfg,
    concurrent_listener{[&](const std::vector<received_message>& batch) {
      auto now = now_ns();
      std::lock_guard<std::mutex> guard{s.mx};
      for (auto& m : batch) {
        int64_t t = 0;
        if (m.body.size() >= sizeof(t))
          std::memcpy(&t, m.body.data(), sizeof(t));
        s.us.push_back(static_cast<double>(now - t) / 1000.0);
      }
      s.count += static_cast<int64_t>(batch.size());
      return consume_status::consume_success;
    }});
  if (!c) {
    std::cerr << "cannot start the consumer: " << describe(c.error()) << '\n';
    return 1;
  }
  std::cout << "# rmq-bench e2e: " << body_size << " B messages, topic "
            << topic << " (" << topic_queues << " queues), broker "
            << cl->node->address << ", ASYNC_FLUSH, " << seconds
            << " s per run\n";
  // A short warm-up so the consumer owns its queues and long-polls.
  run(*p, s, 1, 1000, "warm-up");
  auto light = run(*p, s, seconds, rate, std::to_string(rate) + " msgs/s");
  auto full = run(*p, s, seconds, 0, "full speed");
  print(std::to_string(rate) + " msgs/s", light, seconds);
  std::cout << "  p99 <= 1000 us  " << (light.p99 <= 1000 ? "PASS" : "MISS")
            << '\n';
  print("full speed", full, seconds);
  std::cout << '\n';
  c->shutdown();
  p->shutdown();
  return light.consumed == light.sent && full.consumed == full.sent ? 0 : 1;
}

} // namespace rmq::bench
