// rmq-bench broker --ha [--seconds=2] [--rounds=3] [--catchup-mib=1024]
//                       [--store-dir=/tmp]
// Replication (docs/replication.md) against real rmq-node processes: a
// NameServer, and for each configuration a master (ASYNC_FLUSH) and, but
// for the first, its slave (--broker-id=1, the same --name):
//   - "no slave" (ASYNC_MASTER alone), "ASYNC_MASTER + slave" and
//     "SYNC_MASTER + slave", each round in turn: batches of 64 x 128 B with
//     4 in flight (msgs/s) and single 128 B sends with 1 in flight
//     (p50/p99); every answer must be SEND_OK (others are counted and
//     printed by status);
//   - during the ASYNC_MASTER + slave batches, the slave's lag in time,
//     from the master's dump read every 5 ms on a thread of its own
//     (ha_lag.hpp);
//   - catch-up: a fresh master alone filled with --catchup-mib MiB, then a
//     slave started and timed until it has the master's whole log.
// The medians over the rounds (ratios taken within each round) are held
// against the targets and printed with PASS / MISS; MISS does not change
// the exit code, errors do.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/broker_child.hpp"
#include "apps/rmq-bench/broker_requests.hpp"
#include "apps/rmq-bench/ha_lag.hpp"
#include "apps/rmq-bench/ha_probe.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/common/errors.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/process/node_config.hpp"

namespace rmq::bench {

namespace {

constexpr size_t body_size = 128;
constexpr int batch_size = 64;
constexpr int batch_in_flight = 4;
constexpr auto sample_interval = std::chrono::milliseconds{5};
constexpr double lag_target_ms = 50;
constexpr double catchup_target_mb_s = 500;
const std::string topic = "BenchHa";

struct options {
  bool ha = false;
  int seconds = 2;
  int rounds = 3;
  int catchup_mib = 1024;
  std::string store_dir = "/tmp";
};

std::string fmt(double x, int precision = 0) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(precision) << x;
  return out.str();
}

std::string pct(double x) {
  return fmt(100 * x, 1) + " %";
}

// -- the brokers --------------------------------------------------------------

// A master and, unless `slave` is null, its slave, registered with the
// bench's NameServer under a name of their own.
struct group {
  std::string label;
  std::unique_ptr<broker_child> master;
  std::unique_ptr<broker_child> slave;
  // After the processes: the handles go before their processes stop.
  broker_actor m;
  broker_actor s;
  bool has_slave() const {
    return slave != nullptr;
  }
};

// The broker's front only: the echo actor of connect_broker is not needed
// here, and a broker with NameServers prints its address before it
// registers the echo.
bool connect_to(caf::actor_system& sys, const broker_child& node,
                broker_actor& out) {
  auto addr = parse_host_port(node.address);
  caf::scoped_actor self{sys};
  auto front = addr
                 ? connect<broker_actor>(self, *addr, std::chrono::seconds{10})
                 : caf::expected<broker_actor>{caf::sec::invalid_argument};
  if (!front) {
    std::cerr << "cannot connect to " << node.address << ": "
              << describe(front.error()) << '\n';
    return false;
  }
  out = *front;
  return true;
}

// The slave has asked from the master's end: it has everything.
bool slave_has_all(const ha_state& st) {
  return st.in_sync_slaves >= 1 && st.lag_bytes == 0;
}

// Starts the slave of `g` and waits until it copied the master's log;
// false on failure (printed).
bool add_slave(caf::actor_system& sys, group& g, const std::string& name,
               const std::string& ns, const std::string& store_dir) {
  g.slave = start_broker(name, "ASYNC_FLUSH", store_dir, ns, {"--broker-id=1"});
  if (!g.slave || !connect_to(sys, *g.slave, g.s))
    return false;
  return wait_for_state(sys, g.m, slave_has_all, std::chrono::milliseconds{20},
                        std::chrono::seconds{60},
                        "the slave of " + name + " copying")
         >= 0;
}

// Starts master `name` in `role` (and its slave), then creates the topic
// on the master; null on failure (printed).
std::unique_ptr<group>
start_group(caf::actor_system& sys, const std::string& label,
            const std::string& name, const std::string& role, bool with_slave,
            const std::string& ns, const std::string& store_dir) {
  auto g = std::make_unique<group>();
  g->label = label;
  g->master = start_broker(name, "ASYNC_FLUSH", store_dir, ns,
                           {"--broker-role=" + role});
  if (!g->master || !connect_to(sys, *g->master, g->m))
    return nullptr;
  if (with_slave && !add_slave(sys, *g, name, ns, store_dir))
    return nullptr;
  caf::scoped_actor self{sys};
  if (!create_topic(self, g->m, topic, 1))
    return nullptr;
  return g;
}

// Waits until no run leaves work behind for the next: the master's (and
// the slave's) dispatch caught up, the slave has the master's log.
bool settle(caf::actor_system& sys, const group& g) {
  auto limit = std::chrono::minutes{5};
  auto interval = std::chrono::milliseconds{20};
  auto dispatched = [](const ha_state& st) {
    return st.write_offset >= 0 && st.dispatched_offset == st.write_offset;
  };
  auto master_done = [&](const ha_state& st) {
    return dispatched(st) && (!g.has_slave() || slave_has_all(st));
  };
  if (wait_for_state(sys, g.m, master_done, interval, limit,
                     g.label + ": the master settling")
      < 0)
    return false;
  return !g.has_slave()
         || wait_for_state(sys, g.s, dispatched, interval, limit,
                           g.label + ": the slave's dispatch")
              >= 0;
}

// -- the runs -----------------------------------------------------------------

// Answers other than SEND_OK (and failures), by status.
using tally = std::map<std::string, uint64_t>;

issue_fn counted(issue_fn inner, std::shared_ptr<tally> errors) {
  return [=](caf::event_based_actor* self, uint64_t seq, done_fn done) {
    inner(self, seq, [=](bool ok, uint64_t msgs, const std::string& why) {
      if (!ok)
        ++(*errors)[why];
      done(ok, msgs, why);
    });
  };
}

std::string tally_text(const tally& t) {
  std::string out;
  for (auto& [why, n] : t)
    out += (out.empty() ? "" : ", ") + why + " x " + std::to_string(n);
  return out;
}

struct round_figures {
  double batch = 0;
  double p50 = 0;
  double p99 = 0;
  double lag_p50 = 0;
  double lag_p99 = 0;
  uint64_t errors = 0;
};

round_figures run_round(caf::actor_system& sys, const group& g,
                        const options& opt, int round, bool sample) {
  round_figures f;
  auto tag = g.label + " " + std::to_string(round) + "/"
             + std::to_string(opt.rounds) + " ";
  double s = opt.seconds;
  auto errors = std::make_shared<tally>();
  settle(sys, g);
  load_result a;
  auto batches = [&] {
    a = run_load(sys, tag + "batches", batch_in_flight, s,
                 counted(broker_send_request(g.m, topic, batch_size, body_size),
                         errors));
  };
  std::string lag_text;
  // Where the batches' time goes: each process's CPU over the run.
  auto pid_of = [](const std::unique_ptr<broker_child>& node) {
    return node ? std::to_string(node->proc->pid()) : std::string{};
  };
  auto cpu = [&] {
    return std::vector<double>{cpu_seconds(pid_of(g.master)),
                               g.has_slave() ? cpu_seconds(pid_of(g.slave)) : 0,
                               cpu_seconds("self")};
  };
  auto cpu0 = cpu();
  auto wall0 = clock_type::now();
  if (sample) {
    auto samples = sample_lag(sys, g.m, sample_interval, batches);
    size_t unknown = 0;
    auto lags = lag_ms(samples, &unknown);
    std::vector<double> rtts;
    for (auto& x : samples)
      rtts.push_back(x.rtt_us / 1000);
    std::sort(rtts.begin(), rtts.end());
    f.lag_p50 = percentile(lags, 0.5);
    f.lag_p99 = percentile(lags, 0.99);
    auto interval = samples.size() > 1
                      ? us_since(samples.front().at, samples.back().at) / 1000
                          / static_cast<double>(samples.size() - 1)
                      : 0;
    lag_text
      = "; slave lag p50 " + fmt(f.lag_p50, 1) + " ms, p99 " + fmt(f.lag_p99, 1)
        + " ms, max " + fmt(lags.empty() ? 0 : lags.back(), 1) + " ms ("
        + std::to_string(lags.size()) + " samples every " + fmt(interval, 1)
        + " ms, dump round trip p50 " + fmt(percentile(rtts, 0.5), 1)
        + " / p99 " + fmt(percentile(rtts, 0.99), 1) + " ms"
        + (unknown > 0 ? ", " + std::to_string(unknown) + " left out" : "")
        + ")";
  } else {
    batches();
  }
  auto cpu1 = cpu();
  auto wall = us_since(wall0, clock_type::now()) / 1e6;
  auto share = [&](size_t i) {
    return fmt(100 * (cpu1[i] - cpu0[i]) / wall) + " %";
  };
  auto cpu_text = "; batches' CPU: master " + share(0)
                  + (g.has_slave() ? ", slave " + share(1) : "") + ", bench "
                  + share(2);
  settle(sys, g);
  auto b
    = run_load(sys, tag + "1 in flight", 1, s,
               counted(broker_send_request(g.m, topic, 1, body_size), errors));
  f.batch = a.rate();
  f.p50 = b.p(0.5);
  f.p99 = b.p(0.99);
  f.errors = a.errors + b.errors;
  std::cout << "round " << round << ", " << g.label << ": batches "
            << fmt(f.batch) << " msgs/s; 1 in flight p50 " << fmt(f.p50)
            << " us, p99 " << fmt(f.p99) << " us" << lag_text << cpu_text
            << '\n';
  if (!errors->empty())
    std::cout << "  " << g.label
              << ": answers other than SEND_OK: " << tally_text(*errors)
              << '\n';
  return f;
}

// -- catch-up -----------------------------------------------------------------

struct catchup_figures {
  bool ok = false;
  int64_t bytes = 0;
  double fill_rate = 0;
  double start_s = 0;
  double seconds = 0;
  double mb_s() const {
    return seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0;
  }
};

// A fresh master filled with `opt.catchup_mib` MiB of batches, then a
// slave started: the time from its start until it acknowledged the
// master's whole log.
catchup_figures catchup(caf::actor_system& sys, const std::string& ns,
                        const options& opt) {
  catchup_figures out;
  const std::string name = "bench-ha-catchup";
  auto g = start_group(sys, "catch-up", name, "ASYNC_MASTER", false, ns,
                       opt.store_dir);
  if (!g)
    return out;
  auto target = static_cast<int64_t>(opt.catchup_mib) * 1024 * 1024;
  auto errors = std::make_shared<tally>();
  uint64_t msgs = 0;
  double fill_seconds = 0;
  caf::scoped_actor self{sys};
  int64_t filled = 0;
  while (filled < target) {
    // Runs of 1 s, the last one shortened to what is left at the rate so
    // far, so that the log ends close to the target.
    auto run_s = 1.0;
    if (filled > 0 && fill_seconds > 0)
      run_s = std::clamp(static_cast<double>(target - filled)
                           / (static_cast<double>(filled) / fill_seconds),
                         0.05, 1.0);
    auto r = run_load(
      sys,
      "catch-up: fill " + std::to_string(filled >> 20) + " of "
        + std::to_string(opt.catchup_mib) + " MiB",
      batch_in_flight, run_s,
      counted(broker_send_request(g->m, topic, batch_size, body_size), errors));
    msgs += r.msgs;
    fill_seconds += r.seconds;
    auto st = read_ha_state(self, g->m);
    if (r.msgs == 0 || !st.ok) {
      std::cerr << "catch-up: the fill stalled\n";
      return out;
    }
    filled = st.write_offset;
  }
  if (!errors->empty())
    std::cout << "  catch-up fill: answers other than SEND_OK: "
              << tally_text(*errors) << '\n';
  out.fill_rate = fill_seconds > 0 ? static_cast<double>(msgs) / fill_seconds
                                   : 0;
  if (!settle(sys, *g))
    return out;
  auto st = read_ha_state(self, g->m);
  out.bytes = st.write_offset;
  std::cerr << "catch-up: " << out.bytes << " B filled, starting the slave\n";
  auto t0 = clock_type::now();
  g->slave = start_broker(name, "ASYNC_FLUSH", opt.store_dir, ns,
                          {"--broker-id=1"});
  if (!g->slave)
    return out;
  out.start_s = us_since(t0, clock_type::now()) / 1e6;
  auto caught_up = [&](const ha_state& x) {
    return x.acked_offset >= out.bytes && x.lag_bytes == 0;
  };
  if (wait_for_state(sys, g->m, caught_up, std::chrono::milliseconds{10},
                     std::chrono::minutes{10}, "catch-up: the slave")
      < 0)
    return out;
  out.seconds = us_since(t0, clock_type::now()) / 1e6;
  // The slave's own view: its log's end.
  if (connect_to(sys, *g->slave, g->s)) {
    auto sv = read_ha_state(self, g->s);
    if (sv.slave_offset != out.bytes)
      std::cout << "  catch-up: the slave's dump says " << sv.slave_offset
                << ", the master's log ends at " << out.bytes << '\n';
  }
  out.ok = true;
  std::cout << "catch-up: " << fmt(static_cast<double>(out.bytes) / 1e6)
            << " MB filled at " << fmt(out.fill_rate)
            << " msgs/s; the slave had it all " << fmt(out.seconds, 2)
            << " s after its start (" << fmt(out.start_s, 2)
            << " s of them until it listened): " << fmt(out.mb_s())
            << " MB/s\n";
  return out;
}

// -- reporting ----------------------------------------------------------------

// One report line at this bench's widths (bench_util.hpp).
void line(verdicts& v, const std::string& what, const std::string& value,
          const std::string& limit, const std::string& ratio,
          const std::string& target, std::optional<bool> met) {
  report_line(v, what, value, limit, ratio, target, met, {40, 20});
}

// The rounds of one configuration.
using series = std::vector<round_figures>;

double med(const series& xs, double round_figures::*field) {
  std::vector<double> v;
  for (auto& x : xs)
    v.push_back(x.*field);
  return median(v);
}

// The median over the rounds of a/b, each taken within its round.
double med_ratio(const series& a, const series& b,
                 double round_figures::*field) {
  std::vector<double> v;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    v.push_back(b[i].*field > 0 ? a[i].*field / b[i].*field : 0);
  return median(v);
}

void report(const options& opt, const series& none, const series& async,
            const series& sync, const catchup_figures& cu) {
  verdicts v;
  std::optional<bool> no_target;
  std::cout << "median of " << none.size() << " rounds (ratios within each "
            << "round):\n  " << std::left << std::setw(40) << "figure"
            << std::right << std::setw(20) << "value" << std::setw(24)
            << "held against" << std::setw(9) << "ratio"
            << "  target\n";
  auto none_batch = fmt(med(none, &round_figures::batch)) + " msgs/s";
  line(v, "batches 64 x 128 B, 4 in flight: none",
       fmt(med(none, &round_figures::batch)) + " msgs/s", "", "", "",
       no_target);
  line(v, "  ASYNC_MASTER + slave",
       fmt(med(async, &round_figures::batch)) + " msgs/s", none_batch,
       pct(med_ratio(async, none, &round_figures::batch)), "(none)", no_target);
  auto sync_ratio = med_ratio(sync, none, &round_figures::batch);
  line(v, "  SYNC_MASTER + slave",
       fmt(med(sync, &round_figures::batch)) + " msgs/s", none_batch,
       pct(sync_ratio), ">= 60 % of no slave", sync_ratio >= 0.6);
  auto lat = [](const series& xs) {
    return fmt(med(xs, &round_figures::p50)) + " / "
           + fmt(med(xs, &round_figures::p99)) + " us";
  };
  auto none_p99 = "p99 " + fmt(med(none, &round_figures::p99)) + " us";
  line(v, "1 in flight p50 / p99: none", lat(none), "", "", "", no_target);
  line(v, "  ASYNC_MASTER + slave", lat(async), none_p99,
       fmt(med_ratio(async, none, &round_figures::p99), 2) + " x", "(none)",
       no_target);
  auto p99_ratio = med_ratio(sync, none, &round_figures::p99);
  line(v, "  SYNC_MASTER + slave", lat(sync), none_p99,
       fmt(p99_ratio, 2) + " x", "p99 <= 2 x no slave", p99_ratio <= 2);
  auto lag_p99 = med(async, &round_figures::lag_p99);
  line(v, "ASYNC_MASTER slave lag p50 / p99",
       fmt(med(async, &round_figures::lag_p50), 1) + " / " + fmt(lag_p99, 1)
         + " ms",
       fmt(lag_target_ms) + " ms", pct(lag_p99 / lag_target_ms), "p99 <= 50 ms",
       lag_p99 <= lag_target_ms);
  if (cu.ok)
    line(v, "catch-up of " + std::to_string(opt.catchup_mib) + " MiB",
         fmt(cu.mb_s()) + " MB/s", fmt(catchup_target_mb_s) + " MB/s",
         pct(cu.mb_s() / catchup_target_mb_s), ">= 500 MB/s",
         cu.mb_s() >= catchup_target_mb_s);
  else
    line(v, "catch-up of " + std::to_string(opt.catchup_mib) + " MiB", "failed",
         fmt(catchup_target_mb_s) + " MB/s", "", ">= 500 MB/s", false);
  std::cout << "targets: " << v.pass << " PASS, " << v.miss << " MISS\n";
}

} // namespace

int broker_ha(int argc, char** argv) {
  options opt;
  option_parser flags{"rmq-bench broker --ha"};
  flags.add("ha", opt.ha, "replication figures (this bench)");
  flags.add("seconds", opt.seconds, "duration of each load run");
  flags.add("rounds", opt.rounds, "repetitions (the median is reported)");
  flags.add("catchup-mib", opt.catchup_mib,
            "MiB the master holds before the catch-up's slave starts");
  flags.add("store-dir", opt.store_dir,
            "where the brokers' temporary store dirs are made");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (opt.seconds < 1 || opt.rounds < 1 || opt.catchup_mib < 1) {
    std::cerr << "--seconds, --rounds and --catchup-mib must be >= 1\n";
    return 2;
  }
  auto ns = start_namesrv();
  if (!ns)
    return 1;
  node_config cfg;
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return 1;
  }
  caf::actor_system sys{cfg};
  // Each line as it is printed: the runs take minutes.
  std::cout << std::unitbuf;
  std::cout << "# rmq-bench broker --ha: NameServer " << ns->address << ", "
            << opt.rounds << " rounds of " << opt.seconds
            << " s per figure, catch-up of " << opt.catchup_mib
            << " MiB; ASYNC_FLUSH, stores under " << opt.store_dir << '\n';
  uint64_t errors = 0;
  series none, async, sync;
  {
    std::vector<std::unique_ptr<group>> groups;
    groups.push_back(start_group(sys, "no slave", "bench-ha-none",
                                 "ASYNC_MASTER", false, ns->address,
                                 opt.store_dir));
    if (groups.back())
      groups.push_back(start_group(sys, "ASYNC_MASTER + slave",
                                   "bench-ha-async", "ASYNC_MASTER", true,
                                   ns->address, opt.store_dir));
    if (groups.back())
      groups.push_back(start_group(sys, "SYNC_MASTER + slave", "bench-ha-sync",
                                   "SYNC_MASTER", true, ns->address,
                                   opt.store_dir));
    if (!groups.back())
      return 1;
    // The configurations take turns within each round, so that the box's
    // drift between rounds falls on all three alike.
    for (int round = 1; round <= opt.rounds; ++round) {
      none.push_back(run_round(sys, *groups[0], opt, round, false));
      async.push_back(run_round(sys, *groups[1], opt, round, true));
      sync.push_back(run_round(sys, *groups[2], opt, round, false));
      for (auto* xs : {&none, &async, &sync})
        errors += xs->back().errors;
    }
  }
  // A NameServer of its own: the three groups' unregistrations are behind
  // it, and the slave finds its master by it.
  ns = start_namesrv();
  catchup_figures cu;
  if (ns)
    cu = catchup(sys, ns->address, opt);
  report(opt, none, async, sync, cu);
  if (errors > 0)
    std::cout << "  errors over all rounds: " << errors << '\n';
  return errors > 0 || !cu.ok ? 1 : 0;
}

} // namespace rmq::bench
