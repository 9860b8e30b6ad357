// rmq-bench namesrv [--namesrv=host:port] [--brokers=100] [--topics=1000]
//                   [--seconds=3] [--rounds=3] [--big-topics=10000]
//                   [--tls-certs=DIR]
// Starts an rmq-node NameServer in its own process (unless --namesrv is
// given), registers brokers, then measures from this second process:
// GET_ROUTEINFO_BY_TOPIC round trips per second with 1 and 64 requests in
// flight (route cache warmed first), and REGISTER_BROKER latency for a broker
// with many topics. --tls-certs (the output of make-dev-certs.sh) runs it
// twice in one go, over plain TCP and over mutual TLS (DIR/node for the
// node, DIR/client for us), and prints the TLS/plain ratios.
#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/io/middleman.hpp"
#include "caf/scoped_actor.hpp"

#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/process/node_config.hpp"

namespace rmq::bench {

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  std::string namesrv;
  int brokers = 100;
  int topics = 1000;
  int seconds = 3;
  int rounds = 3;
  int big_topics = 10'000;
  std::string tls_certs;
};

/// The medians of one measurement.
struct figures {
  double rt1 = 0;
  double p50 = 0;
  double p99 = 0;
  double rt64 = 0;
  double reg_first = 0;
  double reg_same = 0;
  double reg_changed = 0;
};

std::string topic_name(int broker, int j, int topics) {
  // Brokers come in pairs that serve the same topics, so every route has
  // two broker groups, as a topic spread over a small cluster would.
  return "BenchTopic_" + std::to_string((broker / 2) * topics + j);
}

register_broker_request make_broker(int i, int topics, int64_t version) {
  register_broker_request req;
  req.cluster_name = "BenchCluster";
  req.broker_name = "bench-broker-" + std::to_string(i);
  req.broker_addr = "127.0.0.1:" + std::to_string(20000 + i);
  req.version = {version, version, version};
  req.topics.reserve(topics);
  for (int j = 0; j < topics; ++j)
    req.topics.push_back(
      {topic_name(i, j, topics), 8, 8, perm::read_write, 0, 0, false});
  return req;
}

// Keeps `in_flight` route requests outstanding until the deadline (or
// until `limit` requests were sent, if not 0), then reports completed round
// trips and per-request latencies.
struct load_result {
  uint64_t completed = 0;
  uint64_t errors = 0;
  std::vector<double> latencies_us;
};

// A request given a timeout costs two wake-ups of CAF 0.17's clock thread
// (one to arm the timeout, one to cancel it). Across the two vCPUs of the
// test VM that added 40-70 us to every round trip, more than the NameServer
// itself takes. So the requests here have no timeout; one tick per second
// instead ends the run if no reply came for `stall_timeout`.
constexpr auto stall_timeout = std::chrono::seconds{10};

load_result run_load(caf::actor_system& sys, const namesrv_actor& ns,
                     int in_flight, int seconds,
                     const std::vector<std::string>& topics, size_t limit = 0) {
  auto result = std::make_shared<load_result>();
  auto deadline = clock_type::now() + std::chrono::seconds{seconds};
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  sys.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    auto outstanding = std::make_shared<int>(0);
    auto next = std::make_shared<size_t>(0);
    auto last_reply
      = std::make_shared<clock_type::time_point>(clock_type::now());
    auto finished = std::make_shared<bool>(false);
    auto finish = [=] {
      if (*finished)
        return;
      *finished = true;
      done->set_value();
      self->quit();
    };
    auto fire = std::make_shared<std::function<void()>>();
    *fire = [=] {
      if (*finished)
        return;
      if (clock_type::now() >= deadline || (limit != 0 && *next >= limit)) {
        if (*outstanding == 0)
          finish();
        return;
      }
      ++*outstanding;
      auto start = clock_type::now();
      auto& topic = topics[(*next)++ % topics.size()];
      self->request(ns, caf::infinite, get_route_info_request{topic})
        .then(
          [=](const topic_route_data&) {
            --*outstanding;
            ++result->completed;
            *last_reply = clock_type::now();
            if (in_flight == 1)
              result->latencies_us.push_back(
                std::chrono::duration<double, std::micro>(*last_reply - start)
                  .count());
            (*fire)();
          },
          [=](const caf::error&) {
            --*outstanding;
            ++result->errors;
            *last_reply = clock_type::now();
            (*fire)();
          });
    };
    for (int i = 0; i < in_flight; ++i)
      (*fire)();
    self->delayed_send(self, std::chrono::seconds{1}, caf::tick_atom::value);
    return {
      [=](caf::tick_atom) {
        if (*outstanding > 0
            && clock_type::now() - *last_reply > stall_timeout) {
          std::cerr << "no reply for " << stall_timeout.count() << " s\n";
          result->errors += static_cast<uint64_t>(*outstanding);
          finish();
          return;
        }
        self->delayed_send(self, std::chrono::seconds{1},
                           caf::tick_atom::value);
      },
    };
  });
  fut.wait();
  return *result;
}

double register_ms(caf::scoped_actor& self, const namesrv_actor& ns,
                   const register_broker_request& req) {
  auto start = clock_type::now();
  bool ok = false;
  self->request(ns, std::chrono::seconds{60}, req)
    .receive([&](const register_broker_result&) { ok = true; },
             [&](const caf::error& err) {
               std::cerr << "register failed: " << describe(err) << '\n';
             });
  auto ms = std::chrono::duration<double, std::milli>(clock_type::now() - start)
              .count();
  return ok ? ms : -1;
}

// Measures against `opt.namesrv` (or a child node started with `node_args`)
// from an actor system with TLS iff `tls_dir` is set; nullopt on failure.
std::optional<figures> measure(options opt, const std::string& tls_dir,
                               const std::vector<std::string>& node_args) {
  std::unique_ptr<namesrv_child> node;
  if (opt.namesrv.empty()) {
    node = start_namesrv(node_args);
    if (!node)
      return std::nullopt;
    opt.namesrv = node->address;
  }
  auto addr = parse_host_port(opt.namesrv);
  if (!addr) {
    std::cerr << "bad --namesrv '" << opt.namesrv << "' (want host:port)\n";
    return std::nullopt;
  }
  node_config cfg;
  cfg.tls_dir = tls_dir;
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return std::nullopt;
  }
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto ns = connect<namesrv_actor>(self, *addr, std::chrono::seconds{10});
  if (!ns) {
    std::cerr << "cannot connect to " << opt.namesrv << ": "
              << describe(ns.error()) << '\n';
    return std::nullopt;
  }
  std::cout << "# rmq-bench namesrv against " << opt.namesrv
            << (tls_dir.empty() ? " (plain TCP)" : " (mutual TLS)") << ": "
            << opt.brokers << " brokers x " << opt.topics << " topics\n";
  auto setup_start = clock_type::now();
  std::vector<std::string> topics;
  for (int i = 0; i < opt.brokers; ++i) {
    auto req = make_broker(i, opt.topics, 1);
    if (i % 2 == 0)
      for (auto& t : req.topics)
        topics.push_back(t.topic_name);
    if (register_ms(self, *ns, req) < 0)
      return std::nullopt;
  }
  std::cout
    << "setup: registered in "
    << std::chrono::duration<double>(clock_type::now() - setup_start).count()
    << " s\n";
  std::vector<double> rt1, rt64, p50, p99, reg_first, reg_same, reg_changed;
  for (int round = 0; round < opt.rounds; ++round) {
    // Registrations (the setup's and the previous round's) empty the route
    // cache. Without this pass the 1-in-flight run (fewer queries than
    // topics) would measure only cache misses.
    auto warm = run_load(sys, *ns, 64, 60, topics, topics.size());
    if (warm.errors > 0)
      std::cerr << "warm-up: " << warm.errors << " errors\n";
    auto one = run_load(sys, *ns, 1, opt.seconds, topics);
    auto many = run_load(sys, *ns, 64, opt.seconds, topics);
    std::sort(one.latencies_us.begin(), one.latencies_us.end());
    rt1.push_back(static_cast<double>(one.completed) / opt.seconds);
    rt64.push_back(static_cast<double>(many.completed) / opt.seconds);
    p50.push_back(percentile(one.latencies_us, 0.50));
    p99.push_back(percentile(one.latencies_us, 0.99));
    auto big = make_broker(1000 + round, opt.big_topics, 1);
    reg_first.push_back(register_ms(self, *ns, big));
    reg_same.push_back(register_ms(self, *ns, big));
    big.version = {2, 2, 2};
    reg_changed.push_back(register_ms(self, *ns, big));
    std::cout << "round " << round + 1 << ": route 1 in flight " << rt1.back()
              << " rt/s (p50 " << p50.back() << " us, p99 " << p99.back()
              << " us), 64 in flight " << rt64.back() << " rt/s, errors "
              << one.errors + many.errors << "; register " << opt.big_topics
              << " topics: first " << reg_first.back() << " ms, same version "
              << reg_same.back() << " ms, new version " << reg_changed.back()
              << " ms\n";
  }
  figures out{median(rt1),        median(p50),       median(p99),
              median(rt64),       median(reg_first), median(reg_same),
              median(reg_changed)};
  std::cout << "median: route queries 1 in flight " << out.rt1 << " rt/s (p50 "
            << out.p50 << " us, p99 " << out.p99 << " us); 64 in flight "
            << out.rt64 << " rt/s\n"
            << "median: REGISTER_BROKER with " << opt.big_topics
            << " topics: first " << out.reg_first << " ms, same version "
            << out.reg_same << " ms, new version " << out.reg_changed
            << " ms\n";
  return out;
}

} // namespace

int namesrv(int argc, char** argv) {
  options opt;
  option_parser flags{"rmq-bench namesrv"};
  flags.add("namesrv", opt.namesrv, "use a running NameServer host:port");
  flags.add("brokers", opt.brokers, "brokers to register");
  flags.add("topics", opt.topics, "topics per broker");
  flags.add("seconds", opt.seconds, "duration of each load run");
  flags.add("rounds", opt.rounds, "repetitions (the median is reported)");
  flags.add("big-topics", opt.big_topics, "topics of the big registration");
  flags.add("tls-certs", opt.tls_certs,
            "make-dev-certs.sh output: also run over mutual TLS, compare");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (!opt.tls_certs.empty() && !opt.namesrv.empty()) {
    std::cerr << "--tls-certs starts its own nodes: drop --namesrv\n";
    return 2;
  }
  auto plain = measure(opt, "", {});
  if (!plain)
    return 1;
  if (opt.tls_certs.empty())
    return 0;
  auto tls = measure(opt, opt.tls_certs + "/client",
                     {"--tls-dir=" + opt.tls_certs + "/node"});
  if (!tls)
    return 1;
  std::cout << "TLS / plain: route queries 1 in flight "
            << tls->rt1 / plain->rt1 << " (p50 " << tls->p50 / plain->p50
            << "x latency); 64 in flight " << tls->rt64 / plain->rt64
            << "; REGISTER_BROKER " << opt.big_topics << " topics first "
            << tls->reg_first / plain->reg_first << "x time\n";
  return 0;
}

} // namespace rmq::bench
