// rmq-bench produce [--seconds=2] [--rounds=3] [--namesrv=ADDR]
//                   [--broker=ADDR] [--sizes=128,1024]
// Producer throughput and latency through the producer API
// (actors/client/producer.hpp), against a cluster the bench starts (one
// NameServer, one ASYNC_FLUSH broker) or one given with --namesrv (then
// --broker names the broker whose echo actor gives the baseline). Per
// message size and round:
//   - the baseline: a minimal CAF request/response with the broker
//     process's echo actor, over the producer process's own connection to
//     it: 1 and 64 in flight, and 64 messages per request with 4 in flight;
//   - sync sends with 1 in flight, async sends with 64 in flight (no
//     auto-batching), async sends with auto-batching (1,024 in flight) and
//     explicit batches of 64 with 4 in flight; p50 / p99 / p999 latency.
// The medians over the rounds are printed with the baseline, the ratio and
// the target (issue #8).
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/client/producer.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/broker_child.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/errors.hpp"
#include "runtime/host_port.hpp"
#include "runtime/node_config.hpp"

namespace rmq::bench {

namespace {

const std::string topic = "BenchProduce";
constexpr int32_t topic_queues = 8;
constexpr int batch_size = 64;
constexpr int batch_in_flight = 4;
constexpr int async_in_flight = 64;
constexpr int auto_batch_in_flight = 1024;

struct options {
  int seconds = 2;
  int rounds = 3;
  std::string namesrv;
  std::string broker;
  std::string sizes = "128,1024";
  std::string store_dir = "/tmp";
};

std::string fmt(double x, int precision = 0) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(precision) << x;
  return out.str();
}

void note_errors(const std::string& what, const load_result& r) {
  if (r.errors > 0)
    std::cout << "  " << what << ": " << r.errors
              << " errors (first: " << r.first_error << ")\n";
}

client_message make_message(size_t size) {
  client_message msg;
  msg.topic = topic;
  msg.tags = "TagA";
  msg.body.assign(size, 'p');
  return msg;
}

issue_fn single(const producer_actor& p, const client_message& msg,
                bool async) {
  auto shared = std::make_shared<const client_message>(msg);
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    auto ok = [done](const client_send_result&) { done(true, 1, {}); };
    auto fail = [done](const caf::error& err) {
      done(false, 0, describe(err));
    };
    if (async)
      self->request(p, caf::infinite, async_atom::value, *shared)
        .then(ok, fail);
    else
      self->request(p, caf::infinite, send_atom::value, *shared).then(ok, fail);
  };
}

issue_fn batch(const producer_actor& p, const client_message& msg) {
  auto shared = std::make_shared<const std::vector<client_message>>(batch_size,
                                                                    msg);
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    self->request(p, caf::infinite, send_atom::value, *shared)
      .then([done](const client_send_result&) { done(true, batch_size, {}); },
            [done](const caf::error& err) { done(false, 0, describe(err)); });
  };
}

struct round_figures {
  double base1 = 0, base64 = 0, base_batch = 0;
  double sync = 0, sync_p50 = 0, sync_p99 = 0, sync_p999 = 0;
  double async = 0, async_p50 = 0, async_p99 = 0, async_p999 = 0;
  double autob = 0, autob_p50 = 0, autob_p99 = 0, autob_p999 = 0;
  double batch = 0, batch_p50 = 0, batch_p99 = 0, batch_p999 = 0;
};

template <class F>
double med(const std::vector<round_figures>& rs, F f) {
  std::vector<double> xs;
  for (auto& r : rs)
    xs.push_back(f(r));
  return median(xs);
}

struct verdicts {
  int pass = 0;
  int miss = 0;
};

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

std::string lat(double p50, double p99, double p999) {
  return "p50 " + fmt(p50) + " / p99 " + fmt(p99) + " / p999 " + fmt(p999)
         + " us";
}

// One message size: every figure, `rounds` times.
void measure(const options& opt, caf::actor_system& sys,
             const broker_connection& conn, const producer_actor& plain,
             const producer_actor& batching, size_t size, verdicts& v) {
  auto msg = make_message(size);
  std::string payload(size, 'x');
  std::string batch_payload(size * batch_size, 'x');
  double s = opt.seconds;
  std::vector<round_figures> rounds;
  for (int round = 1; round <= opt.rounds; ++round) {
    auto tag = [&](const std::string& what) {
      return std::to_string(size) + " B " + std::to_string(round) + "/"
             + std::to_string(opt.rounds) + " " + what;
    };
    round_figures f;
    auto b1 = run_load(sys, tag("baseline 1 in flight"), 1, s,
                       echo_request(conn.echo, payload, 1));
    auto b64 = run_load(sys, tag("baseline 64 in flight"), 64, s,
                        echo_request(conn.echo, payload, 1));
    auto bb = run_load(sys, tag("baseline 64 per request, 4 in flight"),
                       batch_in_flight, s,
                       echo_request(conn.echo, batch_payload, batch_size));
    auto sy = run_load(sys, tag("sync, 1 in flight"), 1, s,
                       single(plain, msg, false));
    auto as = run_load(sys, tag("async, 64 in flight"), async_in_flight, s,
                       single(plain, msg, true));
    auto ab = run_load(sys, tag("async, auto-batching"), auto_batch_in_flight,
                       s, single(batching, msg, true));
    auto eb = run_load(sys, tag("batches of 64"), batch_in_flight, s,
                       batch(plain, msg));
    note_errors("baseline", b1);
    note_errors("baseline 64", b64);
    note_errors("baseline batch", bb);
    note_errors("sync", sy);
    note_errors("async", as);
    note_errors("async auto-batching", ab);
    note_errors("batches", eb);
    f.base1 = b1.rate();
    f.base64 = b64.rate();
    f.base_batch = bb.rate();
    f.sync = sy.rate();
    f.sync_p50 = sy.p(0.5);
    f.sync_p99 = sy.p(0.99);
    f.sync_p999 = sy.p(0.999);
    f.async = as.rate();
    f.async_p50 = as.p(0.5);
    f.async_p99 = as.p(0.99);
    f.async_p999 = as.p(0.999);
    f.autob = ab.rate();
    f.autob_p50 = ab.p(0.5);
    f.autob_p99 = ab.p(0.99);
    f.autob_p999 = ab.p(0.999);
    f.batch = eb.rate();
    f.batch_p50 = eb.p(0.5);
    f.batch_p99 = eb.p(0.99);
    f.batch_p999 = eb.p(0.999);
    std::cout << "round " << round << " (" << size << " B): baseline "
              << fmt(f.base1) << " / " << fmt(f.base64) << " rt/s, "
              << fmt(f.base_batch) << " msgs/s batched; sync " << fmt(f.sync)
              << " msgs/s (" << lat(f.sync_p50, f.sync_p99, f.sync_p999)
              << "), async " << fmt(f.async) << ", auto-batching "
              << fmt(f.autob) << ", batches " << fmt(f.batch) << " msgs/s\n";
    rounds.push_back(f);
  }
  auto ratio = [&](auto num, auto den) {
    return med(rounds, [&](const round_figures& r) {
      auto d = den(r);
      return d > 0 ? num(r) / d : 0.0;
    });
  };
  bool small = size == 128;
  std::cout << "median of " << rounds.size() << " rounds, " << size
            << " B messages:\n";
  line(v, "baseline 1 in flight",
       fmt(med(rounds, [](auto& r) { return r.base1; })) + " rt/s", "", {});
  line(v, "baseline 64 in flight",
       fmt(med(rounds, [](auto& r) { return r.base64; })) + " rt/s", "", {});
  line(v, "baseline 64 per request, 4 in flight",
       fmt(med(rounds, [](auto& r) { return r.base_batch; })) + " msgs/s", "",
       {});
  auto sync_ratio = ratio([](auto& r) { return r.sync; },
                          [](auto& r) { return r.base1; });
  line(v, "sync, 1 in flight",
       fmt(med(rounds, [](auto& r) { return r.sync; })) + " msgs/s ("
         + fmt(100 * sync_ratio, 1) + " % of baseline)",
       small ? ">= 80 % of baseline" : "",
       small ? std::optional<bool>{sync_ratio >= 0.8} : std::nullopt);
  line(v, "  latency",
       lat(med(rounds, [](auto& r) { return r.sync_p50; }),
           med(rounds, [](auto& r) { return r.sync_p99; }),
           med(rounds, [](auto& r) { return r.sync_p999; })),
       "", {});
  auto async_ratio = ratio([](auto& r) { return r.async; },
                           [](auto& r) { return r.base64; });
  line(v, "async, 64 in flight",
       fmt(med(rounds, [](auto& r) { return r.async; })) + " msgs/s ("
         + fmt(100 * async_ratio, 1) + " % of baseline)",
       "", {});
  line(v, "  latency",
       lat(med(rounds, [](auto& r) { return r.async_p50; }),
           med(rounds, [](auto& r) { return r.async_p99; }),
           med(rounds, [](auto& r) { return r.async_p999; })),
       "", {});
  auto autob = med(rounds, [](auto& r) { return r.autob; });
  line(v, "async, auto-batching", fmt(autob) + " msgs/s",
       small ? ">= 300,000 msgs/s" : "",
       small ? std::optional<bool>{autob >= 300000} : std::nullopt);
  line(v, "  latency",
       lat(med(rounds, [](auto& r) { return r.autob_p50; }),
           med(rounds, [](auto& r) { return r.autob_p99; }),
           med(rounds, [](auto& r) { return r.autob_p999; })),
       "", {});
  auto eb = med(rounds, [](auto& r) { return r.batch; });
  auto eb_ratio = ratio([](auto& r) { return r.batch; },
                        [](auto& r) { return r.base_batch; });
  line(v, "batches of 64, 4 in flight",
       fmt(eb) + " msgs/s (" + fmt(100 * eb_ratio, 1) + " % of baseline)",
       small ? ">= 700,000 msgs/s" : "",
       small ? std::optional<bool>{eb >= 700000} : std::nullopt);
  line(v, "  latency (per batch)",
       lat(med(rounds, [](auto& r) { return r.batch_p50; }),
           med(rounds, [](auto& r) { return r.batch_p99; }),
           med(rounds, [](auto& r) { return r.batch_p999; })),
       "", {});
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

bool create_topic(caf::actor_system& sys, const broker_actor& broker) {
  update_topic_request req;
  req.config.topic_name = topic;
  req.config.read_queue_nums = topic_queues;
  req.config.write_queue_nums = topic_queues;
  caf::scoped_actor self{sys};
  bool ok = false;
  self->request(broker, std::chrono::seconds{30}, req)
    .receive([&](const data_version&) { ok = true; },
             [&](const caf::error& err) {
               std::cerr << "updateTopic " << topic
                         << " failed: " << describe(err) << '\n';
             });
  return ok;
}

} // namespace

int produce(int argc, char** argv) {
  options opt;
  option_parser flags{"rmq-bench produce"};
  flags.add("seconds", opt.seconds, "duration of each load run");
  flags.add("rounds", opt.rounds, "repetitions (the median is reported)");
  flags.add("namesrv", opt.namesrv,
            "a running cluster's NameServers (default: start one)");
  flags.add("broker", opt.broker,
            "with --namesrv: the broker address for the baseline");
  flags.add("sizes", opt.sizes, "message sizes in bytes, comma-separated");
  flags.add("store-dir", opt.store_dir,
            "where the started broker's temporary store dir is made");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  auto sizes = parse_sizes(opt.sizes);
  if (opt.seconds < 1 || opt.rounds < 1 || sizes.empty()
      || (!opt.namesrv.empty() && opt.broker.empty())) {
    std::cerr << "--seconds and --rounds must be >= 1, --sizes a list of "
                 "sizes; --namesrv needs --broker\n";
    return 2;
  }
  std::unique_ptr<namesrv_child> ns;
  std::unique_ptr<broker_child> node;
  if (opt.namesrv.empty()) {
    ns = start_namesrv();
    if (!ns)
      return 1;
    node = start_broker("bench-broker", "ASYNC_FLUSH", opt.store_dir,
                        ns->address);
    if (!node)
      return 1;
    opt.namesrv = ns->address;
    opt.broker = node->address;
  }
  node_config cfg;
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return 1;
  }
  caf::actor_system sys{cfg};
  auto conn = connect_broker(sys, opt.broker);
  if (!conn || !create_topic(sys, conn->broker))
    return 1;
  producer_config pcfg;
  pcfg.group = "BenchProducer";
  pcfg.client.namesrv = opt.namesrv;
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
  std::cout << "# rmq-bench produce: NameServer " << opt.namesrv << ", broker "
            << opt.broker << ", topic " << topic << " (" << topic_queues
            << " queues), " << opt.rounds << " rounds of " << opt.seconds
            << " s per figure\n";
  verdicts v;
  for (auto size : sizes)
    measure(opt, sys, *conn, *plain, *batching, size, v);
  std::cout << "targets: " << v.pass << " PASS, " << v.miss << " MISS\n";
  caf::scoped_actor self{sys};
  for (auto* p : {&*plain, &*batching})
    self->request(*p, std::chrono::seconds{10}, shutdown_atom::value)
      .receive([](caf::ok_atom) {}, [](const caf::error&) {});
  return 0;
}

} // namespace rmq::bench
