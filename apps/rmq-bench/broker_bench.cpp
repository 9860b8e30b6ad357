// rmq-bench broker [--seconds=2] [--rounds=3] [--flush=both|async|sync]
//                  [--soak] [--soak-seconds=600]
// Starts an rmq-node broker in its own process (no NameServer), for each
// flush mode in turn, and measures from this second process over loopback
// BASP, round after round:
//   - the baseline: a minimal CAF request/response with the echo actor the
//     broker process registers (actors/common/bench_echo.hpp), reached over the
//     same connection as the broker's front: 128 B with 1 and 64 in flight,
//     64 x 128 B with 4 in flight, and a pull-sized reply;
//   - acknowledged 128 B sends with 1 in flight (p50/p99), 64 in flight,
//     and batches of 64 with 4 in flight;
//   - (async only) 64 in flight over 100 topics x 100 queues (against 64
//     in flight to one queue just before it), pulls from the pre-filled
//     queue, and long-poll wake-up latency.
// Each figure is printed with its baseline, the ratio and the target;
// the medians over the rounds decide PASS / MISS. --soak instead sends at
// full speed (64 in flight) for --soak-seconds and prints the broker's
// RSS every 10 s. --ha runs the replication bench instead (ha_bench.cpp).
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "caf/actor_system.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/scoped_actor.hpp"

#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/broker_child.hpp"
#include "apps/rmq-bench/broker_requests.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/broker/broker.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/process/node_config.hpp"

namespace rmq::bench {

namespace {

constexpr size_t body_size = 128;
constexpr int batch_size = 64;
constexpr int pull_in_flight = 16;
constexpr int spread_topics = 100;
constexpr int spread_queues = 100;
const std::string one_topic = "BenchTopic";
const std::string poll_topic = "BenchPoll";
const std::string group = "BenchGroup";

struct options {
  int seconds = 2;
  int rounds = 3;
  std::string flush = "both";
  bool soak = false;
  int soak_seconds = 600;
  int batch_in_flight = 4;
  std::string store_dir;
  /// "batches": only the 64 x 128 B baseline and the batch sends, for
  /// profiles of the batch path (e.g. the broker under callgrind);
  /// "pulls": only the pulls and their baseline, from a queue filled first;
  /// "spread": only 64 in flight to 1 and to 10,000 queues.
  std::string only;
};

// Broker CPU per message since the meter's start, read after the
// queue service caught up, so it counts the whole work of each message and
// depends less on the box's load than a rate does.
std::string per_msg(cpu_meter& cpu, uint64_t msgs) {
  cpu.stop();
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f us/msg", cpu.per_msg_us(msgs).first);
  return buf;
}

// -- requests -----------------------------------------------------------------

send_message_request make_send(const std::string& topic, int32_t queue) {
  return bench_send(topic, queue, body_size);
}

issue_fn send_request(const broker_actor& broker, bool batch) {
  return broker_send_request(broker, one_topic, batch ? batch_size : 1,
                             body_size);
}

std::string spread_topic(int i) {
  return "BenchSpread_" + std::to_string(i);
}

issue_fn spread_request(const broker_actor& broker) {
  std::vector<send_message_request> reqs;
  for (int t = 0; t < spread_topics; ++t)
    reqs.push_back(make_send(spread_topic(t), 0));
  auto shared = std::make_shared<const std::vector<send_message_request>>(
    std::move(reqs));
  return [=](caf::event_based_actor* self, uint64_t seq, done_fn done) {
    // Consecutive sends go to different topics, and each topic's queues
    // are visited in turn: all 10,000 queues take sends.
    auto req = (*shared)[seq % spread_topics];
    req.queue_id = static_cast<int32_t>((seq / spread_topics) % spread_queues);
    send_one(self, broker, std::move(req), 1, std::move(done));
  };
}

pull_message_request make_pull(const std::string& topic, int64_t offset) {
  return bench_pull(topic, group, offset);
}

issue_fn pull_request(const broker_actor& broker, int64_t max_offset,
                      std::shared_ptr<uint64_t> reply_bytes) {
  return broker_pull_request(broker, one_topic, group, max_offset,
                             std::move(reply_bytes));
}

/// The pull figure and its baseline: pulls over the first `filled`
/// messages, then the echo answering each request with a pull's bytes.
/// The progress labels start with `label`; `cpu`, when given, meters the
/// pulls only.
struct pull_runs {
  load_result pulls;
  load_result baseline;
  uint64_t bytes_per_pull = 0;
};

pull_runs run_pulls(caf::actor_system& sys, const broker_connection& conn,
                    int64_t filled, double seconds, const std::string& label,
                    cpu_meter* cpu = nullptr) {
  pull_runs r;
  auto bytes = std::make_shared<uint64_t>(0);
  if (cpu != nullptr)
    cpu->start();
  r.pulls = run_load(sys, label + "pull", pull_in_flight, seconds,
                     pull_request(conn.broker, filled, bytes));
  if (cpu != nullptr)
    cpu->stop();
  note_errors("pull", r.pulls);
  r.bytes_per_pull = r.pulls.requests > 0 ? *bytes / r.pulls.requests : 0;
  r.baseline = run_load(sys, label + "baseline pull-sized reply",
                        pull_in_flight, seconds,
                        echo_request(conn.echo, std::string(64, 'x'), 32,
                                     std::max<uint64_t>(r.bytes_per_pull, 1)));
  note_errors("baseline pull", r.baseline);
  return r;
}

// -- long polling -------------------------------------------------------------

struct poll_result {
  std::vector<double> send_to_answer_us; // sorted
  std::vector<double> ack_to_answer_us;  // sorted; negative: answer first
  uint64_t errors = 0;
  std::string first_error;
};

// One held pull at a time: park a pull at the queue's end, wait 2 ms so
// that it is held for sure, send one message, and time the pull's answer
// against the send and against its acknowledgement.
poll_result run_poll(caf::actor_system& sys, const broker_actor& broker,
                     int64_t start_offset, double seconds) {
  struct state {
    int64_t offset;
    clock_type::time_point deadline, sent, acked, answered;
    bool have_ack = false;
    bool have_answer = false;
    bool sample_ok = true;
    poll_result out;
  };
  auto st = std::make_shared<state>();
  st->offset = start_offset;
  st->deadline = clock_type::now()
                 + std::chrono::duration_cast<clock_type::duration>(
                   std::chrono::duration<double>{seconds});
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  sys.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    auto round = std::make_shared<std::function<void()>>();
    auto fail = [=](const std::string& why) {
      if (st->out.errors++ == 0)
        st->out.first_error = why;
    };
    // A round ends when both the pull and the send were answered (or
    // failed), so no answer of one round is taken for the next one's.
    auto finish_one = [=] {
      if (!st->have_ack || !st->have_answer)
        return;
      if (st->sample_ok) {
        st->out.send_to_answer_us.push_back(us_since(st->sent, st->answered));
        st->out.ack_to_answer_us.push_back(us_since(st->acked, st->answered));
      }
      (*round)();
    };
    *round = [=] {
      if (clock_type::now() >= st->deadline || st->out.errors > 10) {
        std::sort(st->out.send_to_answer_us.begin(),
                  st->out.send_to_answer_us.end());
        std::sort(st->out.ack_to_answer_us.begin(),
                  st->out.ack_to_answer_us.end());
        done->set_value();
        self->quit();
        return;
      }
      st->have_ack = st->have_answer = false;
      st->sample_ok = true;
      auto req = make_pull(poll_topic, st->offset);
      req.sys_flag = pull_sys_flag::suspend;
      req.suspend_timeout_ms = 15000;
      self->request(broker, caf::infinite, std::move(req))
        .then(
          [=](const pull_message_result& res) {
            st->answered = clock_type::now();
            st->have_answer = true;
            if (res.status != static_cast<uint8_t>(pull_status::found)) {
              fail("held pull: "
                   + to_string(static_cast<pull_status>(res.status)));
              st->sample_ok = false;
              finish_one();
              return;
            }
            st->offset = res.next_begin_offset;
            finish_one();
          },
          [=](const caf::error& err) {
            fail("held pull: " + describe(err));
            st->have_answer = true;
            st->sample_ok = false;
            finish_one();
          });
      self->delayed_send(self, std::chrono::milliseconds{2},
                         caf::tick_atom::value);
    };
    (*round)();
    return {
      [=](caf::tick_atom) {
        st->sent = clock_type::now();
        self->request(broker, caf::infinite, make_send(poll_topic, 0))
          .then(
            [=](const send_result&) {
              st->acked = clock_type::now();
              st->have_ack = true;
              finish_one();
            },
            [=](const caf::error& err) {
              fail("send: " + describe(err));
              st->have_ack = true;
              st->sample_ok = false;
              finish_one();
            });
      },
    };
  });
  fut.wait();
  return st->out;
}

// -- setup --------------------------------------------------------------------

std::optional<int64_t> max_offset(caf::scoped_actor& self,
                                  const broker_actor& broker,
                                  const std::string& topic) {
  std::optional<int64_t> result;
  self->request(broker, std::chrono::seconds{30}, make_pull(topic, 0))
    .receive([&](const pull_message_result& res) { result = res.max_offset; },
             [&](const caf::error& err) {
               std::cerr << "pull " << topic << " failed: " << describe(err)
                         << '\n';
             });
  return result;
}

const nlohmann::json* find_writer(const nlohmann::json& j) {
  return find_part(j, "commit_log_writer");
}

/// The flush service's fdatasync count and their summed time (µs), from
/// the node dump; zeros when unknown.
std::pair<int64_t, int64_t> sync_totals(caf::actor_system& sys,
                                        const broker_actor& broker) {
  std::pair<int64_t, int64_t> result{0, 0};
  caf::scoped_actor self{sys};
  self->request(broker, std::chrono::seconds{60}, dump_atom::value)
    .receive(
      [&](const std::string& text) {
        auto doc = nlohmann::json::parse(text, nullptr, false);
        if (auto f = find_part(doc, "flush_service")) {
          auto syncs = f->value("syncs", int64_t{0});
          result = {syncs, syncs * f->value("avg_sync_us", int64_t{0})};
        }
      },
      [&](const caf::error&) {});
  return result;
}

// Waits until the store's queue service has caught up with the commit log, so
// that no figure pays for the dispatch of the one before it (sends are
// acknowledged before they are dispatched: a run leaves a backlog). Reads
// the node dump every 50 ms; returns the seconds waited, or -1.
double wait_dispatched(caf::actor_system& sys, const broker_actor& broker) {
  auto start = clock_type::now();
  caf::scoped_actor self{sys};
  while (clock_type::now() - start < std::chrono::minutes{5}) {
    bool caught_up = false;
    self->request(broker, std::chrono::seconds{60}, dump_atom::value)
      .receive(
        [&](const std::string& text) {
          auto doc = nlohmann::json::parse(text, nullptr, false);
          auto w = find_writer(doc);
          caught_up = w != nullptr && w->contains("write_offset")
                      && w->contains("dispatched_offset")
                      && (*w)["dispatched_offset"] == (*w)["write_offset"];
          if (w == nullptr) {
            std::cerr << "no commit_log_writer in the broker dump\n";
            caught_up = true;
          }
        },
        [&](const caf::error&) {
          // The dump's parts time out while the queue service works.
        });
    if (caught_up)
      return us_since(start, clock_type::now()) / 1e6;
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  std::cerr << "the broker's queue_service did not catch up in 5 minutes\n";
  return -1;
}

// -- reporting ----------------------------------------------------------------

std::string fmt(double x, int precision = 0) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(precision) << x;
  return out.str();
}

std::string pct(double x) {
  return fmt(100 * x, 1) + " %";
}

/// The figures of one round.
struct round_figures {
  double base1 = 0, base1_p50 = 0, base1_p99 = 0, base64 = 0, base_batch = 0,
         base_pull = 0;
  double send1 = 0, send1_p50 = 0, send1_p99 = 0, send64 = 0, batch = 0;
  // spread_one: 64 in flight to one queue right before the spread run.
  double spread = 0, spread_one = 0, pull = 0, poll_p50 = 0, poll_p99 = 0,
         poll_ack_p50 = 0, poll_ack_p99 = 0;
  uint64_t errors = 0;
};

template <class F>
double med(const std::vector<round_figures>& rs, F f) {
  std::vector<double> xs;
  for (auto& r : rs)
    xs.push_back(f(r));
  return median(xs);
}

// One report line at this bench's widths (bench_util.hpp).
void line(verdicts& v, const std::string& what, const std::string& value,
          const std::string& base, const std::string& ratio,
          const std::string& target, std::optional<bool> met) {
  report_line(v, what, value, base, ratio, target, met);
}

// -- batches only -------------------------------------------------------------

// The batch figure alone, round after round: the baseline, the batches,
// the broker's CPU per message. Nothing else runs in the broker, so a
// profile of it (callgrind, perf) shows the batch path only.
int measure_batches(const options& opt, const std::string& flush_type) {
  auto cluster = start_bench_broker(flush_type, opt.store_dir,
                                    {{one_topic, 1}});
  if (!cluster)
    return 1;
  auto& node = cluster->node;
  auto& sys = *cluster->sys;
  auto* conn = &cluster->conn;
  double s = opt.seconds;
  std::string batch_payload(body_size * batch_size, 'x');
  std::vector<double> rates;
  std::vector<double> cpus;
  for (int round = 1; round <= opt.rounds; ++round) {
    auto tag = flush_type + " " + std::to_string(round) + "/"
               + std::to_string(opt.rounds);
    auto bb = run_load(sys, tag + " baseline 64 x 128 B", opt.batch_in_flight,
                       s, echo_request(conn->echo, batch_payload, batch_size));
    wait_dispatched(sys, conn->broker);
    cpu_meter cpu;
    cpu.broker_pid = std::to_string(node->proc->pid());
    cpu.start();
    auto sb = run_load(sys, tag + " send batches", opt.batch_in_flight, s,
                       send_request(conn->broker, true));
    cpu.stop();
    auto text = cpu.text();
    wait_dispatched(sys, conn->broker);
    text += ", " + per_msg(cpu, sb.msgs);
    note_errors("baseline batch", bb);
    note_errors("send batch", sb);
    rates.push_back(sb.rate());
    cpus.push_back(cpu.per_msg_us(sb.msgs).first);
    std::cout << "round " << round << ": baseline " << fmt(bb.rate())
              << " msgs/s, batches " << fmt(sb.rate()) << " msgs/s ("
              << pct(bb.rate() > 0 ? sb.rate() / bb.rate() : 0) << ", "
              << sb.msgs << " messages); CPU " << text << '\n';
  }
  std::cout << "median of " << rates.size() << " rounds, " << flush_type
            << ": batches " << fmt(median(rates)) << " msgs/s, broker "
            << fmt(median(cpus), 2) << " us/msg\n";
  return 0;
}

// -- pulls only ---------------------------------------------------------------

// The pull figure alone: the queue filled by batch sends first, then
// round after round the pulls (with the broker's CPU per message) and the
// pull-sized baseline, for profiles of the pull path.
int measure_pulls(const options& opt) {
  auto cl = start_bench_broker("ASYNC_FLUSH", opt.store_dir, {{one_topic, 1}});
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  const auto& broker = cl->conn.broker;
  double s = opt.seconds;
  note_errors("fill", run_load(sys, "fill", opt.batch_in_flight, s,
                               send_request(broker, true)));
  wait_dispatched(sys, broker);
  caf::scoped_actor self{sys};
  auto filled = max_offset(self, broker, one_topic).value_or(0);
  std::cout << "filled " << filled << " messages\n";
  std::vector<double> rates;
  std::vector<double> cpus;
  for (int round = 1; round <= opt.rounds; ++round) {
    cpu_meter cpu;
    cpu.broker_pid = std::to_string(cl->node->proc->pid());
    auto r = run_pulls(
      sys, cl->conn, filled, s,
      std::to_string(round) + "/" + std::to_string(opt.rounds) + " ", &cpu);
    auto ratio = r.baseline.rate() > 0 ? r.pulls.rate() / r.baseline.rate() : 0;
    rates.push_back(r.pulls.rate());
    cpus.push_back(cpu.per_msg_us(r.pulls.msgs).first);
    std::cout << "round " << round << ": pull " << fmt(r.pulls.rate())
              << " msgs/s, baseline " << fmt(r.baseline.rate()) << " msgs/s ("
              << pct(ratio) << "); CPU " << cpu.text() << ", "
              << fmt(cpus.back(), 2) << " us/msg\n";
  }
  std::cout << "median of " << rates.size() << " rounds: pulls "
            << fmt(median(rates)) << " msgs/s, broker " << fmt(median(cpus), 2)
            << " us/msg\n";
  return 0;
}

// -- spread only --------------------------------------------------------------

// The 10,000-queue figure alone (async flush), round after round: 64 in
// flight to one queue, then over 10,000, each with the broker's CPU per
// message, for profiles of the many-queue path.
int measure_spread(const options& opt) {
  auto cl = start_bench_broker("ASYNC_FLUSH", opt.store_dir, {{one_topic, 1}});
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  const auto& broker = cl->conn.broker;
  {
    caf::scoped_actor self{sys};
    for (int t = 0; t < spread_topics; ++t)
      if (!create_topic(self, broker, spread_topic(t), spread_queues))
        return 1;
  }
  double s = opt.seconds;
  std::vector<double> ratios;
  for (int round = 1; round <= opt.rounds; ++round) {
    auto tag = std::to_string(round) + "/" + std::to_string(opt.rounds);
    auto measured = [&](const std::string& what, issue_fn fn) {
      wait_dispatched(sys, broker);
      cpu_meter cpu;
      cpu.broker_pid = std::to_string(cl->node->proc->pid());
      cpu.start();
      auto r = run_load(sys, tag + " " + what, 64, s, std::move(fn));
      cpu.stop();
      note_errors(what, r);
      return std::make_pair(r.rate(), cpu.text() + ", " + per_msg(cpu, r.msgs));
    };
    auto [one, one_cpu] = measured("64 in flight, 1 queue",
                                   send_request(broker, false));
    auto [spread, spread_cpu] = measured("64 in flight, 10,000 queues",
                                         spread_request(broker));
    ratios.push_back(one > 0 ? spread / one : 0);
    std::cout << "round " << round << ": 1 queue " << fmt(one) << " msgs/s ("
              << one_cpu << "), 10,000 queues " << fmt(spread) << " msgs/s ("
              << spread_cpu << "): " << pct(ratios.back()) << '\n';
  }
  std::cout << "median of " << ratios.size() << " rounds: 10,000 queues at "
            << pct(median(ratios)) << " of 1 queue\n";
  return 0;
}

// -- one flush mode -----------------------------------------------------------

int measure(const options& opt, const std::string& flush_type, verdicts& v) {
  bool async = flush_type == "ASYNC_FLUSH";
  auto cluster = start_bench_broker(flush_type, opt.store_dir);
  if (!cluster)
    return 1;
  auto& node = cluster->node;
  auto& sys = *cluster->sys;
  auto* conn = &cluster->conn;
  auto& broker = conn->broker;
  std::cout << "# rmq-bench broker against " << node->address << " ("
            << flush_type << ", store " << node->dir << "), " << opt.rounds
            << " rounds of " << opt.seconds << " s per figure\n";
  {
    caf::scoped_actor self{sys};
    if (!create_topic(self, broker, one_topic, 1)
        || !create_topic(self, broker, poll_topic, 1))
      return 1;
    if (async)
      for (int t = 0; t < spread_topics; ++t)
        if (!create_topic(self, broker, spread_topic(t), spread_queues))
          return 1;
  }
  double s = opt.seconds;
  std::string small(body_size, 'x');
  std::string batch_payload(body_size * batch_size, 'x');
  std::vector<round_figures> rounds;
  for (int round = 1; round <= opt.rounds; ++round) {
    std::cerr << "[" << flush_type << " round " << round << "/" << opt.rounds
              << "]\n";
    round_figures f;
    auto tag = [&](const std::string& what) {
      return flush_type + " " + std::to_string(round) + "/"
             + std::to_string(opt.rounds) + " " + what;
    };
    auto b1 = run_load(sys, tag("baseline 1 in flight"), 1, s,
                       echo_request(conn->echo, small, 1));
    auto b64 = run_load(sys, tag("baseline 64 in flight"), 64, s,
                        echo_request(conn->echo, small, 1));
    auto bb = run_load(sys, tag("baseline 64 x 128 B, 4 in flight"), 4, s,
                       echo_request(conn->echo, batch_payload, batch_size));
    // The dispatch lag each send run leaves behind, in seconds.
    std::string lags;
    auto settle = [&](const char* after) {
      auto waited = wait_dispatched(sys, broker);
      if (after != nullptr)
        lags += std::string{lags.empty() ? "" : ", "} + after + " "
                + fmt(waited, 2) + " s";
    };
    cpu_meter cpu;
    cpu.broker_pid = std::to_string(node->proc->pid());
    std::string cpu1, cpu64, cpub;
    settle(nullptr);
    cpu.start();
    auto s1 = run_load(sys, tag("send 1 in flight"), 1, s,
                       send_request(broker, false));
    cpu.stop();
    cpu1 = cpu.text();
    settle("1 in flight");
    cpu1 += ", " + per_msg(cpu, s1.msgs);
    cpu.start();
    auto s64 = run_load(sys, tag("send 64 in flight"), 64, s,
                        send_request(broker, false));
    cpu.stop();
    cpu64 = cpu.text();
    settle("64 in flight");
    cpu64 += ", " + per_msg(cpu, s64.msgs);
    auto syncs0 = sync_totals(sys, broker);
    cpu.start();
    auto sb = run_load(sys, tag("send batches"), opt.batch_in_flight, s,
                       send_request(broker, true));
    cpu.stop();
    cpub = cpu.text();
    if (!async) {
      // Group commit: how many fdatasyncs the batches took and how long.
      auto syncs1 = sync_totals(sys, broker);
      auto n = syncs1.first - syncs0.first;
      if (n > 0 && sb.seconds > 0)
        cpub += ", " + fmt(static_cast<double>(n) / sb.seconds) + " syncs/s of "
                + fmt(static_cast<double>(syncs1.second - syncs0.second)
                      / static_cast<double>(n))
                + " us";
    }
    settle("batches");
    cpub += ", " + per_msg(cpu, sb.msgs);
    for (auto* r : {&b1, &b64, &bb, &s1, &s64, &sb})
      f.errors += r->errors;
    note_errors("baseline", b1);
    note_errors("baseline 64", b64);
    note_errors("baseline batch", bb);
    note_errors("send 1", s1);
    note_errors("send 64", s64);
    note_errors("send batch", sb);
    f.base1 = b1.rate();
    f.base1_p50 = b1.p(0.5);
    f.base1_p99 = b1.p(0.99);
    f.base64 = b64.rate();
    f.base_batch = bb.rate();
    f.send1 = s1.rate();
    f.send1_p50 = s1.p(0.5);
    f.send1_p99 = s1.p(0.99);
    f.send64 = s64.rate();
    f.batch = sb.rate();
    std::cout << "round " << round << ": baseline 1 in flight " << fmt(f.base1)
              << " rt/s (p50 " << fmt(f.base1_p50) << " us, p99 "
              << fmt(f.base1_p99) << " us), 64 in flight " << fmt(f.base64)
              << " rt/s, 64 x 128 B x 4 in flight " << fmt(f.base_batch)
              << " msgs/s\n"
              << "round " << round << ": send 1 in flight " << fmt(f.send1)
              << " msgs/s (p50 " << fmt(f.send1_p50) << " us, p99 "
              << fmt(f.send1_p99) << " us), 64 in flight " << fmt(f.send64)
              << " msgs/s, batches " << fmt(f.batch) << " msgs/s ("
              << opt.batch_in_flight << " in flight)\n"
              << "round " << round << ": CPU 1 in flight: " << cpu1
              << "; 64 in flight: " << cpu64 << "; batches: " << cpub << '\n';
    if (!async)
      std::cout << "round " << round << ": dispatch lag after " << lags << '\n';
    if (async) {
      int64_t filled = 0;
      {
        caf::scoped_actor self{sys};
        filled = max_offset(self, broker, one_topic).value_or(0);
      }
      auto pr = run_pulls(sys, *conn, filled, s, tag(""));
      f.errors += pr.pulls.errors + pr.baseline.errors;
      f.pull = pr.pulls.rate();
      f.base_pull = pr.baseline.rate();
      int64_t poll_start = 0;
      {
        caf::scoped_actor self{sys};
        poll_start = max_offset(self, broker, poll_topic).value_or(0);
      }
      std::cerr << "  " << tag("long polling") << "...\r" << std::flush;
      auto po = run_poll(sys, broker, poll_start, s);
      std::cerr << "\r\033[K" << std::flush;
      if (po.errors > 0)
        std::cout << "  long polling: " << po.errors
                  << " errors (first: " << po.first_error << ")\n";
      f.errors += po.errors;
      f.poll_p50 = percentile(po.send_to_answer_us, 0.5);
      f.poll_p99 = percentile(po.send_to_answer_us, 0.99);
      f.poll_ack_p50 = percentile(po.ack_to_answer_us, 0.5);
      f.poll_ack_p99 = percentile(po.ack_to_answer_us, 0.99);
      std::cout << "round " << round << ": pull " << fmt(f.pull) << " msgs/s ("
                << pr.pulls.requests << " pulls of " << pr.bytes_per_pull
                << " B, queue of " << filled << "), baseline "
                << fmt(f.base_pull) << " msgs/s; held pull answered "
                << fmt(f.poll_p50) << " / " << fmt(f.poll_p99)
                << " us (p50/p99) after the send, " << fmt(f.poll_ack_p50)
                << " / " << fmt(f.poll_ack_p99) << " us after its ack ("
                << po.send_to_answer_us.size() << " samples)\n"
                << "round " << round << ": dispatch lag after " << lags << '\n';
    }
    rounds.push_back(f);
  }
  // The 10,000-queue runs come after all others: they leave 10,000 dirty
  // consume queues whose next checkpoint (msync of each) keeps the
  // queue service, and so every pull, busy for seconds. Each is held against
  // a one-queue run just before it: the earlier one-queue figure ran
  // before gigabytes of batches, whose write-back runs beside these.
  if (async) {
    for (int round = 1; round <= opt.rounds; ++round) {
      auto tag = flush_type + " " + std::to_string(round) + "/"
                 + std::to_string(opt.rounds);
      auto waited = wait_dispatched(sys, broker);
      auto one = run_load(sys, tag + " send 64 in flight, 1 queue", 64, s,
                          send_request(broker, false));
      wait_dispatched(sys, broker);
      auto sp = run_load(sys, tag + " send 64 in flight, 10,000 queues", 64, s,
                         spread_request(broker));
      note_errors("spread 1 queue", one);
      note_errors("spread", sp);
      rounds[round - 1].errors += one.errors + sp.errors;
      rounds[round - 1].spread_one = one.rate();
      rounds[round - 1].spread = sp.rate();
      std::cout << "spread " << round << ": 64 in flight over 10,000 queues "
                << fmt(sp.rate()) << " msgs/s, to 1 queue just before "
                << fmt(one.rate())
                << " msgs/s (dispatch lag before: " << fmt(waited, 2)
                << " s)\n";
    }
    std::cout << "spread: dispatch lag after the last "
              << fmt(wait_dispatched(sys, broker), 2) << " s\n";
  }
  // Medians over the rounds, against the medians of the baselines.
  auto m = [&](double round_figures::*field) {
    return med(rounds, [field](const round_figures& r) { return r.*field; });
  };
  // A ratio is taken within each round (figure and baseline measured a
  // few seconds apart) and its median reported: the box's speed drifts
  // between rounds more than the ratios do.
  auto mr = [&](double round_figures::*num, double round_figures::*den) {
    return med(rounds, [num, den](const round_figures& r) {
      return r.*den > 0 ? r.*num / r.*den : 0;
    });
  };
  auto base1 = m(&round_figures::base1);
  auto base1_p50 = m(&round_figures::base1_p50);
  auto base1_p99 = m(&round_figures::base1_p99);
  auto base64 = m(&round_figures::base64);
  auto base_batch = m(&round_figures::base_batch);
  auto send1 = m(&round_figures::send1);
  auto send64 = m(&round_figures::send64);
  auto batch = m(&round_figures::batch);
  std::cout << "median of " << rounds.size() << " rounds, " << flush_type
            << ":\n";
  std::cout << "  " << std::left << std::setw(34) << "figure" << std::right
            << std::setw(22) << "value" << std::setw(24) << "baseline"
            << std::setw(9) << "ratio"
            << "  target\n";
  std::optional<bool> none;
  line(v, "send 1 in flight", fmt(send1) + " msgs/s", fmt(base1) + " rt/s",
       pct(mr(&round_figures::send1, &round_figures::base1)),
       async ? ">= 85 %" : "(none)",
       async
         ? std::optional<bool>{mr(&round_figures::send1, &round_figures::base1)
                               >= 0.85}
         : none);
  line(v, "  p50 / p99 latency",
       fmt(m(&round_figures::send1_p50)) + " / "
         + fmt(m(&round_figures::send1_p99)) + " us",
       fmt(base1_p50) + " / " + fmt(base1_p99) + " us",
       pct(mr(&round_figures::base1_p50, &round_figures::send1_p50)), "", none);
  line(v, "send 64 in flight", fmt(send64) + " msgs/s", fmt(base64) + " rt/s",
       pct(mr(&round_figures::send64, &round_figures::base64)),
       async ? ">= 70 %" : "(none)",
       async ? std::optional<bool>{mr(&round_figures::send64,
                                      &round_figures::base64)
                                   >= 0.70}
             : none);
  line(v,
       "send 64 x 128 B batches, " + std::to_string(opt.batch_in_flight)
         + " in flight",
       fmt(batch) + " msgs/s", fmt(base_batch) + " msgs/s",
       pct(mr(&round_figures::batch, &round_figures::base_batch)),
       async ? ">= 50 %" : ">= 300,000 msgs/s",
       async ? mr(&round_figures::batch, &round_figures::base_batch) >= 0.5
             : batch >= 300'000);
  if (async) {
    auto spread = m(&round_figures::spread);
    auto spread_one = m(&round_figures::spread_one);
    auto pull = m(&round_figures::pull);
    auto base_pull = m(&round_figures::base_pull);
    auto poll_ack_p99 = m(&round_figures::poll_ack_p99);
    line(v, "send 64 in flight, 10,000 queues", fmt(spread) + " msgs/s",
         fmt(spread_one) + " (1 queue)",
         pct(mr(&round_figures::spread, &round_figures::spread_one)),
         ">= 80 % of 1 queue",
         mr(&round_figures::spread, &round_figures::spread_one) >= 0.8);
    line(v, "pull, 32 per pull, 16 in flight", fmt(pull) + " msgs/s",
         fmt(base_pull) + " msgs/s",
         pct(mr(&round_figures::pull, &round_figures::base_pull)),
         ">= 1,000,000 msgs/s", pull >= 1e6);
    line(v, "held pull: send -> answer p50/p99",
         fmt(m(&round_figures::poll_p50)) + " / "
           + fmt(m(&round_figures::poll_p99)) + " us",
         fmt(base1_p50) + " / " + fmt(base1_p99) + " us", "", "", none);
    line(v, "held pull: ack -> answer p50/p99",
         fmt(m(&round_figures::poll_ack_p50)) + " / " + fmt(poll_ack_p99)
           + " us",
         "2 x p50 " + fmt(2 * base1_p50) + " us",
         fmt(mr(&round_figures::poll_ack_p99, &round_figures::base1_p50), 2)
           + " rt",
         "p99 <= 2 baseline rt",
         mr(&round_figures::poll_ack_p99, &round_figures::base1_p50) <= 2);
  }
  uint64_t errors = 0;
  for (auto& r : rounds)
    errors += r.errors;
  if (errors > 0)
    std::cout << "  errors over all rounds: " << errors << '\n';
  caf::anon_send_exit(conn->echo, caf::exit_reason::user_shutdown);
  return errors > 0 ? 1 : 0;
}

// -- soak ---------------------------------------------------------------------

int soak(const options& opt) {
  auto cluster = start_bench_broker("ASYNC_FLUSH", opt.store_dir,
                                    {{one_topic, 1}});
  if (!cluster)
    return 1;
  auto& node = cluster->node;
  auto& sys = *cluster->sys;
  auto* conn = &cluster->conn;
  std::cout << "# rmq-bench broker --soak against " << node->address
            << " (ASYNC_FLUSH): 128 B sends, 64 in flight, for "
            << opt.soak_seconds << " s; broker RSS every 10 s\n";
  auto [rss0, anon0] = rss_kib(node->proc->pid());
  std::cout << "t=0 s: RSS " << rss0 / 1024 << " MiB (anon " << anon0 / 1024
            << " MiB)\n";
  uint64_t total = 0, errors = 0;
  long max_anon = anon0, max_rss = rss0;
  for (int t = 10; t <= opt.soak_seconds; t += 10) {
    auto r = run_load(sys, "soak t=" + std::to_string(t) + " s", 64, 10,
                      send_request(conn->broker, false));
    total += r.msgs;
    errors += r.errors;
    auto [rss, anon] = rss_kib(node->proc->pid());
    max_anon = std::max(max_anon, anon);
    max_rss = std::max(max_rss, rss);
    std::cout << "t=" << t << " s: " << fmt(r.rate()) << " msgs/s, " << r.errors
              << " errors, RSS " << rss / 1024 << " MiB (anon " << anon / 1024
              << " MiB)" << std::endl;
  }
  std::cout << "soak: " << total << " messages, " << errors
            << " errors, peak RSS " << max_rss / 1024 << " MiB, peak anon "
            << max_anon / 1024 << " MiB\n";
  caf::anon_send_exit(conn->echo, caf::exit_reason::user_shutdown);
  return errors > 0 ? 1 : 0;
}

} // namespace

int broker(int argc, char** argv) {
  // --ha is a bench of its own with its own flags (ha_bench.cpp).
  for (int i = 1; i < argc; ++i)
    if (std::string{argv[i]} == "--ha" || std::string{argv[i]} == "--ha=true")
      return broker_ha(argc, argv);
  options opt;
  opt.store_dir = "/tmp";
  bool ha = false;
  option_parser flags{"rmq-bench broker"};
  flags.add("seconds", opt.seconds, "duration of each load run");
  flags.add("rounds", opt.rounds, "repetitions (the median is reported)");
  flags.add("flush", opt.flush, "both, async or sync");
  flags.add("batch-in-flight", opt.batch_in_flight,
            "batches of 64 in flight (the target is for 4)");
  flags.add("store-dir", opt.store_dir,
            "where the broker's temporary store dir is made");
  flags.add("soak", opt.soak,
            "instead: full-speed sends, broker RSS every 10 s");
  flags.add("soak-seconds", opt.soak_seconds, "length of the soak run");
  flags.add("ha", ha,
            "instead: replication figures (--ha --help lists their flags)");
  flags.add("only", opt.only,
            "batches, pulls or spread: only that figure (for profiles of the "
            "broker)");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (opt.seconds < 1 || opt.rounds < 1 || opt.soak_seconds < 10
      || opt.batch_in_flight < 1) {
    std::cerr << "--seconds and --rounds must be >= 1, --soak-seconds >= 10\n";
    return 2;
  }
  if (opt.soak)
    return soak(opt);
  if (opt.flush != "both" && opt.flush != "async" && opt.flush != "sync") {
    std::cerr << "--flush must be both, async or sync\n";
    return 2;
  }
  if (!opt.only.empty() && opt.only != "batches" && opt.only != "pulls"
      && opt.only != "spread") {
    std::cerr << "--only must be batches, pulls or spread\n";
    return 2;
  }
  if (opt.only == "pulls")
    return measure_pulls(opt);
  if (opt.only == "spread")
    return measure_spread(opt);
  if (opt.only == "batches") {
    int rc = 0;
    if (opt.flush != "sync")
      rc |= measure_batches(opt, "ASYNC_FLUSH");
    if (opt.flush != "async")
      rc |= measure_batches(opt, "SYNC_FLUSH");
    return rc;
  }
  verdicts v;
  int rc = 0;
  if (opt.flush != "sync")
    rc |= measure(opt, "ASYNC_FLUSH", v);
  if (opt.flush != "async")
    rc |= measure(opt, "SYNC_FLUSH", v);
  std::cout << "targets: " << v.pass << " PASS, " << v.miss << " MISS\n";
  return rc;
}

} // namespace rmq::bench
