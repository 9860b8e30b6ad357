// rmq-bench e2e [--seconds=3] [--rate=10000] [--store-dir=/tmp]
//               [--namesrv=ADDR --broker=ADDR]
// Produce -> consume latency in one process: an auto-batching producer and
// a push consumer on a running cluster (--namesrv, --broker) or on a
// broker the bench starts (one NameServer, one
// ASYNC_FLUSH broker). Each 128 B body carries its send time (steady
// clock, ns); the listener takes the difference. Two runs: a fixed light
// rate (--rate, paced sends) and full speed (async sends as fast as the
// producer's back-pressure lets them). p50 / p99 / p999 per run, a
// progress line a second, and the target (issue #9) with PASS / MISS.
// Each run also shows the send -> acknowledgement latency and the CPU of
// both processes; the light rate is held against the same-run baseline:
// the broker's bench echo, paced at the same rate from the same kind of
// caller (this thread hands each request to an actor, as send_async
// does). One echo round trip is the least a message can take from this
// process to the broker and back.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/client/consumer/consumer.hpp"
#include "actors/client/producer/producer.hpp"
#include "actors/common/bench_echo.hpp"
#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/common/errors.hpp"

namespace rmq::bench {

namespace {

/// "BenchE2E", with a suffix on a joined cluster (cluster_flags::start).
std::string topic = "BenchE2E";
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

struct percentiles {
  double p50 = 0, p99 = 0, p999 = 0;
};

/// Sorts `us` and answers its percentiles.
percentiles percentiles_of(std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  if (us.empty())
    return {};
  return {percentile(us, 0.5), percentile(us, 0.99), percentile(us, 0.999)};
}

struct run_result {
  int64_t sent = 0;
  int64_t consumed = 0;
  percentiles e2e;
  percentiles ack;
  std::string cpu;
};

/// Paces `rate` calls of `issue(t0_ns)` a second for `seconds` from this
/// thread (bench code, not an actor: it paces with the wall clock);
/// answers how many were made. `tick` runs about once a second.
template <class Issue, class Tick>
int64_t paced(int seconds, int64_t rate, Issue issue, Tick tick) {
  int64_t n = 0;
  auto start = clock_type::now();
  auto end = start + std::chrono::seconds{seconds};
  auto last = start;
  while (clock_type::now() < end) {
    if (rate > 0) {
      auto due = start + std::chrono::nanoseconds{n * 1'000'000'000 / rate};
      std::this_thread::sleep_until(due);
    }
    issue(now_ns());
    ++n;
    if (clock_type::now() - last >= std::chrono::seconds{1}) {
      last = clock_type::now();
      tick(n);
    }
  }
  return n;
}

/// The baseline: `rate` echo requests a second of `body_size` bytes to the
/// broker's echo, each handed from this thread to a local actor that makes
/// the request; the round trips' percentiles.
percentiles paced_echo(caf::actor_system& sys, const caf::actor& echo,
                       int seconds, int64_t rate, const std::string& pid,
                       std::string& cpu_text) {
  auto s = std::make_shared<samples>();
  auto relay = sys.spawn([echo, s](caf::event_based_actor* self) {
    auto payload = std::make_shared<const std::string>(body_size, 'e');
    return caf::behavior{
      [=](int64_t t0) {
        self->request(echo, caf::infinite, bench_echo_atom::value, *payload)
          .then(
            [=](uint64_t) {
              auto d = static_cast<double>(now_ns() - t0) / 1000.0;
              std::lock_guard<std::mutex> guard{s->mx};
              s->us.push_back(d);
              ++s->count;
            },
            [=](const caf::error&) { ++s->count; });
      },
    };
  });
  cpu_meter cpu;
  cpu.broker_pid = pid;
  cpu.start();
  auto n = paced(
    seconds, rate, [&](int64_t t0) { caf::anon_send(relay, t0); },
    [&](int64_t sent) {
      std::cout << "  baseline echo: sent " << sent << ", answered " << s->count
                << '\n'
                << std::flush;
    });
  auto deadline = clock_type::now() + std::chrono::seconds{10};
  while (s->count < n && clock_type::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  cpu.stop();
  cpu_text = cpu.text();
  caf::anon_send_exit(relay, caf::exit_reason::user_shutdown);
  std::lock_guard<std::mutex> guard{s->mx};
  return percentiles_of(s->us);
}

// Sends for `seconds` (paced at `rate`, or unpaced when 0), waits for the
// consumer, answers the latency percentiles.
run_result run(producer& p, samples& s, int seconds, int64_t rate,
               const std::string& label, const std::string& pid) {
  {
    std::lock_guard<std::mutex> guard{s.mx};
    s.us.clear();
  }
  auto base = s.count.load();
  client_message msg;
  msg.topic = topic;
  msg.body.assign(body_size, 'e');
  // Shared with the callbacks, which may outlive a run that gave up.
  auto failed = std::make_shared<std::atomic<int64_t>>(0);
  auto acks = std::make_shared<samples>();
  cpu_meter cpu;
  cpu.broker_pid = pid;
  cpu.start();
  auto sent = paced(
    seconds, rate,
    [&](int64_t t0) {
      std::memcpy(msg.body.data(), &t0, sizeof(t0));
      p.send_async(msg,
                   [failed, acks, t0](caf::expected<client_send_result> res) {
                     if (!res) {
                       ++*failed;
                       return;
                     }
                     auto d = static_cast<double>(now_ns() - t0) / 1000.0;
                     std::lock_guard<std::mutex> guard{acks->mx};
                     acks->us.push_back(d);
                   });
    },
    [&](int64_t n) {
      std::cout << "  " << label << ": sent " << n << ", consumed "
                << s.count - base << '\n'
                << std::flush;
    });
  auto deadline = clock_type::now() + std::chrono::seconds{30};
  while (s.count - base + *failed < sent && clock_type::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  cpu.stop();
  run_result r;
  r.sent = sent;
  r.consumed = s.count - base;
  r.cpu = cpu.text();
  {
    std::lock_guard<std::mutex> guard{acks->mx};
    r.ack = percentiles_of(acks->us);
  }
  std::lock_guard<std::mutex> guard{s.mx};
  r.e2e = percentiles_of(s.us);
  return r;
}

std::string text(const percentiles& x) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << "p50 " << x.p50 << " / p99 "
      << x.p99 << " / p999 " << x.p999 << " us";
  return out.str();
}

void print(const std::string& what, const run_result& r, int seconds) {
  std::cout << "  " << std::left << std::setw(28) << what << std::right
            << r.consumed << " / " << r.sent << " consumed (" << std::fixed
            << std::setprecision(0) << static_cast<double>(r.sent) / seconds
            << " msgs/s sent), " << text(r.e2e) << "\n"
            << "  " << std::setw(28) << ""
            << "send -> ack " << text(r.ack) << "; " << r.cpu << '\n';
}

} // namespace

int e2e(int argc, char** argv) {
  int seconds = 3;
  int64_t rate = 10'000;
  cluster_flags where;
  option_parser flags{"rmq-bench e2e"};
  flags.add("seconds", seconds, "duration of each run");
  flags.add("rate", rate, "messages per second of the light run");
  where.add_to(flags);
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (seconds < 1 || rate < 1) {
    std::cerr << "--seconds and --rate must be >= 1\n";
    return 2;
  }
  auto cl = where.start(topic, topic_queues);
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  auto p = cluster_producer(*cl, "BenchE2EProducer");
  if (!p)
    return 1;
  samples s;
  push_consumer_config ccfg;
  ccfg.client.namesrv = cl->namesrv_addr;
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
            << cl->broker_addr << (cl->node ? ", ASYNC_FLUSH, " : ", ")
            << seconds << " s per run\n";
  auto pid = cl->broker_pid;
  // A short warm-up so the consumer owns its queues and long-polls.
  run(*p, s, 1, 1000, "warm-up", pid);
  std::string echo_cpu;
  auto echo = paced_echo(sys, cl->conn.echo, seconds, rate, pid, echo_cpu);
  auto light = run(*p, s, seconds, rate, std::to_string(rate) + " msgs/s", pid);
  auto full = run(*p, s, seconds, 0, "full speed", pid);
  std::cout << "  " << std::left << std::setw(28)
            << ("baseline echo " + std::to_string(rate) + "/s") << std::right
            << text(echo) << "; " << echo_cpu << '\n';
  print(std::to_string(rate) + " msgs/s", light, seconds);
  std::cout << std::fixed << std::setprecision(2) << "  p99 "
            << light.e2e.p99 / std::max(1.0, echo.p99)
            << " x the echo's p99; p99 <= 1000 us  "
            << (light.e2e.p99 <= 1000 ? "PASS" : "MISS") << '\n';
  print("full speed", full, seconds);
  c->shutdown();
  p->shutdown();
  return light.consumed == light.sent && full.consumed == full.sent ? 0 : 1;
}

} // namespace rmq::bench
