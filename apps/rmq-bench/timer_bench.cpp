// rmq-bench timer [--pending=1000000] [--probes=2000] [--seconds=3]
//                 [--fill-plain] [--store-dir=/tmp]
// The timer (docs/timer.md) against a broker process the bench starts
// (ASYNC_FLUSH): scheduling throughput (timed sends accepted per second,
// 128 B, 64 in flight) next to the same-run plain-send throughput as its
// limit; then `--pending` timers 1 to 2 h ahead stay pending while
// `--probes` timers 5 to 15 s ahead fire: their lateness (store time of
// the delivered copy - TIMER_OUT_MS) as p50 / p99 / max; and the broker's
// resident memory (all, and anonymous) before the fill and with the
// timers pending; --fill-plain fills with plain sends instead, the
// memory baseline for as many stored messages.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/broker_child.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/timer_message.hpp"
#include "runtime/net/blocking_ask.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/process/option_parser.hpp"

namespace rmq::bench {

namespace {

const std::string topic = "BenchTimer";
const std::string probe_topic = "BenchTimerProbe";
constexpr int32_t queues = 8;
constexpr size_t body_size = 128;

std::string fmt(double x) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << x;
  return out.str();
}

// A send of `topic` whose TIMER_DELAY_MS comes from `delay` for each
// request (none when it is null).
issue_fn timed_send(const broker_actor& broker, const std::string& topic,
                    std::function<int64_t(uint64_t)> delay) {
  return [=](caf::event_based_actor* self, uint64_t seq, done_fn done) {
    send_message_request req;
    req.producer_group = "BenchTimerProducer";
    req.topic = topic;
    req.queue_id = static_cast<int32_t>(seq % queues);
    req.body.assign(body_size, 't');
    if (delay)
      append_property(req.properties, property_timer_delay_ms,
                      std::to_string(delay(seq)));
    self->request(broker, caf::infinite, std::move(req))
      .then(
        [=](const send_result& res) {
          done(res.status == static_cast<uint8_t>(send_status::send_ok), 1,
               res.status == 0 ? "" : "not SEND_OK");
        },
        [=](const caf::error& err) { done(false, 0, describe(err)); });
  };
}

} // namespace

int timer(int argc, char** argv) {
  int64_t pending = 1'000'000;
  int64_t probes = 2000;
  int seconds = 3;
  std::string store_dir = "/tmp";
  bool fill_plain = false;
  option_parser flags{"rmq-bench timer"};
  flags.add("pending", pending, "timers kept pending 1 to 2 h ahead");
  flags.add("probes", probes, "timers 5 to 15 s ahead whose lateness counts");
  flags.add("fill-plain", fill_plain,
            "fill with plain sends instead (the memory baseline)");
  flags.add("seconds", seconds, "duration of each throughput run");
  flags.add("store-dir", store_dir,
            "where the started broker's temporary store dir is made");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (pending < 0 || probes < 1 || seconds < 1) {
    std::cerr << "--pending >= 0, --probes and --seconds >= 1\n";
    return 2;
  }
  auto cluster = start_bench_broker("ASYNC_FLUSH", store_dir,
                                    {{topic, queues}, {probe_topic, queues}});
  if (!cluster)
    return 1;
  auto& node = cluster->node;
  auto& sys = *cluster->sys;
  auto* conn = &cluster->conn;
  caf::scoped_actor self{sys};
  auto pid = static_cast<int>(node->proc->pid());
  auto rss_before = rss_kib(pid);
  std::cout << "# rmq-bench timer: " << body_size << " B, topic " << topic
            << " (" << queues << " queues), broker " << node->address
            << " (ASYNC_FLUSH)\n";
  auto plain = run_load(sys, "plain sends, 64 in flight", 64, seconds,
                        timed_send(conn->broker, topic, nullptr));
  auto far = [](uint64_t seq) {
    return int64_t{3'600'000} + static_cast<int64_t>(seq * 7919 % 3'600'000);
  };
  auto timed = run_load(sys, "timed sends (1-2 h), 64 in flight", 64, seconds,
                        timed_send(conn->broker, topic, far));
  auto filled = static_cast<int64_t>(timed.msgs);
  auto fill_start = std::chrono::steady_clock::now();
  while (filled < pending) {
    auto left = static_cast<double>(pending - filled);
    auto run = run_load(
      sys, "filling", 64,
      std::clamp(left / std::max(timed.rate(), 1.0), 1.0, 30.0),
      timed_send(conn->broker, topic,
                 fill_plain ? std::function<int64_t(uint64_t)>{} : far));
    filled += static_cast<int64_t>(run.msgs);
    if (run.msgs == 0)
      break;
  }
  auto fill_s = std::chrono::duration<double>(std::chrono::steady_clock::now()
                                              - fill_start)
                  .count();
  // Let the timer service take them all into the wheel.
  auto status = [&](const std::string& key) -> int64_t {
    auto got = blocking_ask<broker_runtime_info>(self, conn->broker,
                                                 std::chrono::seconds{10},
                                                 broker_runtime_info_request{});
    if (!got)
      return -1;
    auto i = got->table.find(key);
    return i == got->table.end() ? -1 : std::stoll(i->second);
  };
  for (int i = 0; i < 600 && status("timerOffsetBehind") > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  auto congest = status("timerCongestNum");
  auto rss_pending = rss_kib(pid);
  // Probes: lateness with everything else pending, sent one by one.
  uint64_t sent_probes = 0;
  for (int64_t i = 0; i < probes; ++i) {
    send_message_request req;
    req.producer_group = "BenchTimerProducer";
    req.topic = probe_topic;
    req.queue_id = static_cast<int32_t>(i % queues);
    req.body.assign(body_size, 'p');
    append_property(req.properties, property_timer_delay_ms,
                    std::to_string(5000 + i * 131 % 10'000));
    auto res = blocking_ask<send_result>(self, conn->broker,
                                         std::chrono::seconds{10}, req);
    if (res && res->status == static_cast<uint8_t>(send_status::send_ok))
      ++sent_probes;
  }
  std::vector<double> late;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
  std::vector<int64_t> next(queues, 0);
  while (late.size() < sent_probes
         && std::chrono::steady_clock::now() < deadline) {
    bool any = false;
    for (int32_t q = 0; q < queues; ++q) {
      pull_message_request req;
      req.consumer_group = "BenchTimerChecker";
      req.topic = probe_topic;
      req.queue_id = q;
      req.queue_offset = next[q];
      req.max_msg_nums = 32;
      auto got = blocking_ask<pull_message_result>(
        self, conn->broker, std::chrono::seconds{10}, req);
      if (!got || got->status != static_cast<uint8_t>(pull_status::found))
        continue;
      auto recs = decode_records(got->buffer);
      if (!recs)
        continue;
      for (auto& rec : *recs) {
        auto out = stored_timer_out_ms(rec.properties);
        if (out >= 0)
          late.push_back(static_cast<double>(rec.store_timestamp - out));
      }
      next[q] = got->next_begin_offset;
      any = true;
    }
    if (!any)
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  std::sort(late.begin(), late.end());
  auto pct = [&](double q) { return late.empty() ? -1 : percentile(late, q); };
  std::cout << "  plain sends                       " << fmt(plain.rate())
            << " msgs/s (the limit)\n"
            << "  timed sends                       " << fmt(timed.rate())
            << " msgs/s ("
            << fmt(100 * timed.rate() / std::max(plain.rate(), 1.0))
            << " % of plain)\n"
            << "  filled " << filled << " pending timers in "
            << std::setprecision(3) << fill_s << " s; timerCongestNum "
            << congest << '\n'
            << "  broker RSS (anon)                 " << rss_before.first / 1024
            << " (" << rss_before.second / 1024 << ") MiB before, "
            << rss_pending.first / 1024 << " (" << rss_pending.second / 1024
            << ") MiB with " << congest << " pending\n"
            << "  probe lateness (" << late.size() << " of " << sent_probes
            << ")      p50 " << fmt(pct(0.5)) << " ms, p99 " << fmt(pct(0.99))
            << " ms, max " << fmt(late.empty() ? -1 : late.back()) << " ms\n";
  return late.size() == sent_probes ? 0 : 1;
}

} // namespace rmq::bench
