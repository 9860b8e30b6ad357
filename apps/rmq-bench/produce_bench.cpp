// rmq-bench produce [--seconds=2] [--rounds=3] [--namesrv=ADDR]
//                   [--broker=ADDR] [--sizes=128,1024]
//                   [--only=baseline,sync,async,auto,batch]
//                   [--batch-in-flight=4]
// Producer throughput and latency through the producer API
// (actors/client/producer/producer.hpp), against a cluster the bench starts (one
// NameServer, one ASYNC_FLUSH broker) or one given with --namesrv (then
// --broker names the broker whose echo actor gives the baseline and gets
// the topic, named with this run's pid as a suffix). Per
// message size and round:
//   - the baseline: a minimal CAF request/response with the broker
//     process's echo actor, over the producer process's own connection to
//     it: 1 and 64 in flight, and 64 and 1,024 messages per request with
//     4 in flight (--batch-in-flight);
//   - sync sends with 1 in flight, async sends with 64 in flight (no
//     auto-batching), async sends with auto-batching (1,024 in flight) and
//     explicit batches of 64 and of 1,024 with 4 in flight; p50 / p99 /
//     p999 latency. The explicit-batch target is judged on batches of
//     64 with 4 in flight (the shape of `rmq-bench broker`); batches of
//     1,024 show what is left once the per-request costs are spread
//     thinner. Each batch
//     figure also prints its CPU ceiling: the rate its measured CPU per
//     message (broker + producer) allows with every core of the machine
//     busy with nothing else, so a miss shows whether more in flight
//     (--batch-in-flight) could reach the target at all.
// The medians over the rounds are printed with the baseline, the ratio,
// the target (issue #8) and the CPU time per message of the broker and of
// the producer process (/proc/PID/stat: what a loaded machine changes
// least; the broker's only when the bench started it).
#include <algorithm>
#include <array>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <variant>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/client/producer/producer.hpp"
#include "apps/rmq-bench/bench_cluster.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/common/errors.hpp"

namespace rmq::bench {

namespace {

/// "BenchProduce", with a suffix on a joined cluster (cluster_flags::start).
std::string topic = "BenchProduce";
constexpr int32_t topic_queues = 8;
constexpr int batch_size = 64;
/// 1,024 x 128 B is ~170 KiB a request: RocketMQ's batch guidance is
/// lists of up to 1-4 MiB, so this is still a small batch for it.
constexpr int large_batch_size = 1024;
constexpr int async_in_flight = 64;
constexpr int auto_batch_in_flight = 1024;

struct options {
  int seconds = 2;
  int rounds = 3;
  std::string sizes = "128,1024";
  std::string only;
  /// Requests in flight for the batch figures and their baselines (the
  /// target is for 4, as in `rmq-bench broker`).
  int batch_in_flight = 4;
};

std::string fmt(double x, int precision = 0) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(precision) << x;
  return out.str();
}

client_message make_message(size_t size) {
  client_message msg;
  msg.topic = topic;
  msg.tags = "TagA";
  msg.body.assign(size, 'p');
  return msg;
}

tagged_fn tagged(const producer_actor& p, const client_message& msg) {
  auto shared = std::make_shared<const client_message>(msg);
  return [=](caf::event_based_actor* self, uint64_t tag) {
    self->send(p, async_atom::value, tag, *shared);
  };
}

issue_fn single(const producer_actor& p, const client_message& msg) {
  auto shared = std::make_shared<const client_message>(msg);
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    auto ok = [done](const client_send_result&) { done(true, 1, {}); };
    auto fail = [done](const caf::error& err) {
      done(false, 0, describe(err));
    };
    self->request(p, caf::infinite, send_atom::value, *shared).then(ok, fail);
  };
}

issue_fn batch(const producer_actor& p, const client_message& msg, int count) {
  auto shared = std::make_shared<const std::vector<client_message>>(
    static_cast<size_t>(count), msg);
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    self->request(p, caf::infinite, send_atom::value, *shared)
      .then([done, count](const client_send_result&) { done(true, count, {}); },
            [done](const caf::error& err) { done(false, 0, describe(err)); });
  };
}

/// One figure of one round: rate, latency, CPU per message.
struct figure {
  double rate = 0, p50 = 0, p99 = 0, p999 = 0;
  /// CPU microseconds per acknowledged message: broker, producer process.
  double cpu_broker = 0, cpu_client = 0;
  bool ran = false;
};

enum fig_id {
  base1,
  base64,
  base_batch,
  base_large,
  sync1,
  async64,
  autob,
  batch64,
  batch_large,
  n_figs
};

const char* fig_names[n_figs] = {"baseline", "baseline", "baseline",
                                 "baseline", "sync",     "async",
                                 "auto",     "batch",    "batch"};

using round_figures = std::array<figure, n_figs>;

double med(const std::vector<round_figures>& rs, fig_id id,
           double figure::*field) {
  std::vector<double> xs;
  for (auto& r : rs)
    xs.push_back(r[id].*field);
  return median(xs);
}

void line(verdicts& v, const std::string& what, const std::string& value,
          const std::string& target, std::optional<bool> met) {
  std::cout << "  " << std::left << std::setw(36) << what << std::right
            << std::setw(44) << value << "  " << target;
  if (met) {
    std::cout << (*met ? "  PASS" : "  MISS");
    (*met ? v.pass : v.miss)++;
  }
  std::cout << '\n';
}

std::string lat(const std::vector<round_figures>& rs, fig_id id) {
  return "p50 " + fmt(med(rs, id, &figure::p50)) + " / p99 "
         + fmt(med(rs, id, &figure::p99)) + " / p999 "
         + fmt(med(rs, id, &figure::p999)) + " us";
}

std::string cpu(const std::vector<round_figures>& rs, fig_id id) {
  return "CPU/msg: broker " + fmt(med(rs, id, &figure::cpu_broker), 2)
         + " us, producer " + fmt(med(rs, id, &figure::cpu_client), 2) + " us";
}

/// The rate the figure's CPU per message (broker + producer) allows with
/// every core busy with nothing else: no number of requests in flight
/// goes past it. Empty when the broker's CPU is unknown (a joined
/// cluster).
std::string cpu_ceiling(const std::vector<round_figures>& rs, fig_id id) {
  auto broker = med(rs, id, &figure::cpu_broker);
  auto client = med(rs, id, &figure::cpu_client);
  auto cores = std::max(1u, std::thread::hardware_concurrency());
  if (broker <= 0 || client <= 0)
    return "";
  return fmt(cores * 1e6 / (broker + client)) + " msgs/s on "
         + std::to_string(cores) + " cores";
}

bool wanted(const options& opt, fig_id id) {
  if (opt.only.empty())
    return true;
  std::istringstream in{opt.only};
  std::string item;
  while (std::getline(in, item, ','))
    if (item == fig_names[id])
      return true;
  return false;
}

// One message size: every figure, `rounds` times.
void measure(const options& opt, caf::actor_system& sys,
             const broker_connection& conn, const std::string& broker_pid,
             const producer_actor& plain, const producer_actor& batching,
             size_t size, verdicts& v) {
  auto msg = make_message(size);
  std::string payload(size, 'x');
  std::string batch_payload(size * batch_size, 'x');
  std::string large_payload(size * large_batch_size, 'x');
  double s = opt.seconds;
  std::vector<round_figures> rounds;
  for (int round = 1; round <= opt.rounds; ++round) {
    round_figures f;
    // An async figure sends tagged (answered one-way): a generator with
    // 1,024 requests pending would mostly measure CAF's map of them.
    auto run = [&](fig_id id, const std::string& what, int in_flight,
                   std::variant<issue_fn, tagged_fn> issue) {
      if (!wanted(opt, id))
        return;
      auto label = std::to_string(size) + " B " + std::to_string(round) + "/"
                   + std::to_string(opt.rounds) + " " + what;
      cpu_meter meter;
      meter.broker_pid = broker_pid;
      meter.start();
      auto r = issue.index() == 0
                 ? run_load(sys, label, in_flight, s,
                            std::get<issue_fn>(std::move(issue)))
                 : run_tagged_load(sys, label, in_flight, s,
                                   std::get<tagged_fn>(std::move(issue)));
      meter.stop();
      note_errors(what, r);
      auto& x = f[id];
      x.ran = true;
      x.rate = r.rate();
      x.p50 = r.p(0.5);
      x.p99 = r.p(0.99);
      x.p999 = r.p(0.999);
      std::tie(x.cpu_broker, x.cpu_client) = meter.per_msg_us(r.msgs);
    };
    run(base1, "baseline 1 in flight", 1, echo_request(conn.echo, payload, 1));
    run(base64, "baseline 64 in flight", 64,
        echo_request(conn.echo, payload, 1));
    auto in_flight = ", " + std::to_string(opt.batch_in_flight) + " in flight";
    run(base_batch, "baseline 64 per request" + in_flight, opt.batch_in_flight,
        echo_request(conn.echo, batch_payload, batch_size));
    run(base_large, "baseline 1,024 per request" + in_flight,
        opt.batch_in_flight,
        echo_request(conn.echo, large_payload, large_batch_size));
    run(sync1, "sync, 1 in flight", 1, single(plain, msg));
    run(async64, "async, 64 in flight", async_in_flight, tagged(plain, msg));
    run(autob, "async, auto-batching", auto_batch_in_flight,
        tagged(batching, msg));
    run(batch64, "batches of 64", opt.batch_in_flight,
        batch(plain, msg, batch_size));
    run(batch_large, "batches of 1,024", opt.batch_in_flight,
        batch(plain, msg, large_batch_size));
    std::cout << "round " << round << " (" << size << " B): baseline "
              << fmt(f[base1].rate) << " / " << fmt(f[base64].rate) << " rt/s, "
              << fmt(f[base_batch].rate) << " msgs/s batched; sync "
              << fmt(f[sync1].rate) << " msgs/s, async " << fmt(f[async64].rate)
              << ", auto-batching " << fmt(f[autob].rate) << ", batches "
              << fmt(f[batch64].rate) << " / " << fmt(f[batch_large].rate)
              << " msgs/s\n";
    rounds.push_back(f);
  }
  auto ratio = [&](fig_id num, fig_id den) {
    std::vector<double> xs;
    for (auto& r : rounds)
      xs.push_back(r[den].rate > 0 ? r[num].rate / r[den].rate : 0.0);
    return median(xs);
  };
  auto rate = [&](fig_id id) { return med(rounds, id, &figure::rate); };
  auto ran = rounds.front();
  bool small = size == 128;
  auto in_flight = ", " + std::to_string(opt.batch_in_flight) + " in flight";
  // The target is for 4 in flight, as in `rmq-bench broker`.
  bool batch_judged = small && opt.batch_in_flight == 4;
  std::cout << "median of " << rounds.size() << " rounds, " << size
            << " B messages:\n";
  if (ran[base1].ran)
    line(v, "baseline 1 in flight", fmt(rate(base1)) + " rt/s", "", {});
  if (ran[base64].ran)
    line(v, "baseline 64 in flight", fmt(rate(base64)) + " rt/s", "", {});
  if (ran[base_batch].ran)
    line(v, "baseline 64 per request" + in_flight,
         fmt(rate(base_batch)) + " msgs/s", "", {});
  if (ran[base_large].ran)
    line(v, "baseline 1,024 per request" + in_flight,
         fmt(rate(base_large)) + " msgs/s", "", {});
  if (ran[sync1].ran) {
    auto r = ratio(sync1, base1);
    bool judged = small && ran[base1].ran;
    line(v, "sync, 1 in flight",
         fmt(rate(sync1)) + " msgs/s ("
           + (ran[base1].ran ? fmt(100 * r, 1) + " % of baseline)"
                             : "no baseline)"),
         judged ? ">= 80 % of baseline" : "",
         judged ? std::optional<bool>{r >= 0.8} : std::nullopt);
    line(v, "  latency", lat(rounds, sync1), "", {});
    line(v, "  cpu", cpu(rounds, sync1), "", {});
  }
  if (ran[async64].ran) {
    line(v, "async, 64 in flight",
         fmt(rate(async64)) + " msgs/s (" + fmt(100 * ratio(async64, base64), 1)
           + " % of baseline)",
         "", {});
    line(v, "  latency", lat(rounds, async64), "", {});
    line(v, "  cpu", cpu(rounds, async64), "", {});
  }
  if (ran[autob].ran) {
    auto x = rate(autob);
    line(v, "async, auto-batching", fmt(x) + " msgs/s",
         small ? ">= 300,000 msgs/s" : "",
         small ? std::optional<bool>{x >= 300000} : std::nullopt);
    line(v, "  latency", lat(rounds, autob), "", {});
    line(v, "  cpu", cpu(rounds, autob), "", {});
  }
  if (ran[batch64].ran) {
    auto x = rate(batch64);
    line(v, "batches of 64" + in_flight,
         fmt(x) + " msgs/s (" + fmt(100 * ratio(batch64, base_batch), 1)
           + " % of baseline)",
         batch_judged ? ">= 700,000 msgs/s" : "",
         batch_judged ? std::optional<bool>{x >= 700000} : std::nullopt);
    line(v, "  latency (per batch)", lat(rounds, batch64), "", {});
    line(v, "  cpu", cpu(rounds, batch64), "", {});
    if (auto c = cpu_ceiling(rounds, batch64); !c.empty())
      line(v, "  cpu ceiling", c, "", {});
  }
  if (ran[batch_large].ran) {
    line(v, "batches of 1,024" + in_flight,
         fmt(rate(batch_large)) + " msgs/s ("
           + fmt(100 * ratio(batch_large, base_large), 1) + " % of baseline)",
         "", {});
    line(v, "  latency (per batch)", lat(rounds, batch_large), "", {});
    line(v, "  cpu", cpu(rounds, batch_large), "", {});
    if (auto c = cpu_ceiling(rounds, batch_large); !c.empty())
      line(v, "  cpu ceiling", c, "", {});
  }
}

std::vector<size_t> parse_sizes(const std::string& text) {
  std::vector<size_t> out;
  std::istringstream in{text};
  std::string item;
  while (std::getline(in, item, ','))
    if (auto n = std::strtoul(item.c_str(), nullptr, 10); n > 0)
      out.push_back(n);
  return out;
}

} // namespace

int produce(int argc, char** argv) {
  options opt;
  option_parser flags{"rmq-bench produce"};
  flags.add("seconds", opt.seconds, "duration of each load run");
  flags.add("rounds", opt.rounds, "repetitions (the median is reported)");
  cluster_flags where;
  where.add_to(flags);
  flags.add("sizes", opt.sizes, "message sizes in bytes, comma-separated");
  flags.add("only", opt.only,
            "figures to run, comma-separated: baseline, sync, async, auto, "
            "batch (default: all)");
  flags.add("batch-in-flight", opt.batch_in_flight,
            "batch requests in flight (the target is for 4)");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  auto sizes = parse_sizes(opt.sizes);
  if (opt.seconds < 1 || opt.rounds < 1 || sizes.empty()
      || opt.batch_in_flight < 1) {
    std::cerr << "--seconds, --rounds and --batch-in-flight must be >= 1, "
                 "--sizes a list of sizes\n";
    return 2;
  }
  auto cl = where.start(topic, topic_queues);
  if (!cl)
    return 1;
  auto& sys = *cl->sys;
  producer_config pcfg;
  pcfg.group = "BenchProducer";
  pcfg.client.namesrv = cl->namesrv_addr;
  pcfg.auto_batch = false;
  auto plain = spawn_producer_actor(sys, pcfg);
  pcfg.group = "BenchProducerBatching";
  pcfg.auto_batch = true;
  auto batching = spawn_producer_actor(sys, pcfg);
  if (!plain || !batching) {
    std::cerr << "cannot start the producers: "
              << describe(plain ? batching.error() : plain.error()) << '\n';
    return 1;
  }
  std::cout << "# rmq-bench produce: NameServer " << cl->namesrv_addr
            << ", broker " << cl->broker_addr << ", topic " << topic << " ("
            << topic_queues << " queues), " << opt.rounds << " rounds of "
            << opt.seconds << " s per figure\n";
  verdicts v;
  for (auto size : sizes)
    measure(opt, sys, cl->conn, cl->broker_pid, *plain, *batching, size, v);
  std::cout << "targets: " << v.pass << " PASS, " << v.miss << " MISS\n";
  caf::scoped_actor self{sys};
  for (auto* p : {&*plain, &*batching})
    self->request(*p, std::chrono::seconds{10}, shutdown_atom::value)
      .receive([](caf::ok_atom) {}, [](const caf::error&) {});
  return 0;
}

} // namespace rmq::bench
