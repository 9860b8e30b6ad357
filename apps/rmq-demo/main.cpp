// rmq-demo: a local cluster doing real work, and what an operator sees.
//   build/rmq-demo
// Starts two `rmq-node --role=namesrv` and two `rmq-node --role=broker`
// (broker-a with async flush, broker-b with sync flush) on free loopback
// ports, then:
//   1. creates DemoTopic on both brokers: both NameServers route it to both;
//   2. starts a consumer group of two `push_consumer_example --print=ids`
//      processes: both join it on both brokers;
//   3. sends 20,000 messages through the producer API: the first half async
//      (auto-batched), then kills broker-b with SIGKILL (both NameServers
//      drop it at once), sends a quarter sync while it is down (they go to
//      broker-a), restarts broker-b on its port and store (it kept every
//      message it acknowledged), and sends the rest async;
//   4. waits (bounded) until the consumers got every acknowledged message,
//      broker-b's too, printing a progress line each second;
//   5. stops the consumers with SIGTERM (they leave their group);
//   6. stops the cluster with SIGTERM (exit code 0 each).
// The summary: sent, acknowledged, stored (the brokers' max offsets),
// consumed (unique), duplicates, lost (acknowledged, never consumed),
// throughput and end-to-end latency percentiles (consumed - born).
// Exits 0 if lost is 0 and every step went as expected, else 1.
// Child processes are killed on every path (RAII, plus PR_SET_PDEATHSIG).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <stdlib.h>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"

#include "actors/client/producer/producer.hpp"
#include "apps/rmq-demo/broker_probe.hpp"
#include "apps/rmq-demo/probe.hpp"
#include "messages/common/errors.hpp"
#include "runtime/net/free_port.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/process/child_process.hpp"
#include "runtime/process/node_config.hpp"

using namespace std::chrono_literals;

namespace {

using clock_type = std::chrono::steady_clock;
using child = rmq::child_process;

constexpr const char* topic = "DemoTopic";

int64_t ms_since(clock_type::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now()
                                                               - t0)
    .count();
}

struct demo {
  std::string bin = rmq::exe_dir();
  std::vector<std::string> lines; // summary
  bool ok = true;

  void check(bool cond, const std::string& what) {
    auto line = std::string{cond ? "[ ok ] " : "[FAIL] "} + what;
    std::cout << line << std::endl;
    lines.push_back(line);
    ok = ok && cond;
  }

  void banner(const std::string& title) {
    std::cout << "\n=== " << title << " ===" << std::endl;
  }

  // What an operator would type, and what it prints.
  void admin(const std::string& addr, std::vector<std::string> cmd) {
    std::vector<std::string> argv{bin + "/rmq-admin", "-n", addr};
    std::string shown = "$ rmq-admin -n " + addr;
    for (auto& x : cmd) {
      argv.push_back(x);
      shown += " " + x;
    }
    std::cout << shown << std::endl;
    std::string out;
    auto rc = rmq::run_command(argv, out, 10s);
    std::cout << out;
    if (rc != 0)
      std::cout << "(exit code " << rc << ")" << std::endl;
  }
};

// Starts a NameServer on a free port; returns "127.0.0.1:<port>" or "".
std::string start_namesrv(child& proc) {
  std::string rest;
  if (!proc.started() || !proc.wait_for("namesrv listening on ", rest, 10s))
    return {};
  return rest;
}

constexpr int32_t queues_per_broker = 8;
constexpr int total_messages = 20'000;
constexpr const char* group = "DemoConsumerGroup";

struct broker_proc {
  std::string name;
  std::string flush;
  std::string store;
  uint16_t port = 0;
  std::unique_ptr<child> proc;
  std::unique_ptr<rmq::demo::broker_probe> probe;
  int64_t acked = 0;

  std::string addr() const {
    return "127.0.0.1:" + std::to_string(port);
  }
};

// Starts (or restarts) a broker; waits until it listens and registered
// with both NameServers, printing its lines. Returns false on failure.
bool start_broker(demo& d, caf::actor_system& sys, broker_proc& b,
                  const std::vector<std::string>& addrs) {
  if (b.port == 0) {
    auto port = rmq::pick_free_port("127.0.0.1");
    if (!port)
      return false;
    b.port = *port;
  }
  b.proc = std::make_unique<child>(std::vector<std::string>{
    d.bin + "/rmq-node", "--role=broker", "--name=" + b.name,
    "--namesrv=" + addrs[0] + ";" + addrs[1],
    "--port=" + std::to_string(b.port), "--remoting-port=0",
    "--store-dir=" + b.store, "--flush-disk-type=" + b.flush,
    "--mapped-file-size-commit-log=67108864", "--log-level=warn"});
  int registered = 0;
  bool listening = false;
  std::string line;
  while ((!listening || registered < 2) && b.proc->read_line(line, 10s)) {
    std::cout << b.name << ": " << line << std::endl;
    listening = listening || line.find(" listening on ") != std::string::npos;
    if (line.rfind("registered with ", 0) == 0)
      ++registered;
  }
  if (!listening || registered < 2)
    return false;
  b.probe = std::make_unique<rmq::demo::broker_probe>(
    sys, rmq::host_port{"127.0.0.1", b.port});
  return !b.probe->connect(5s);
}

// Waits until `pred` holds or `timeout` passes; answers the time it took
// in ms, or -1.
template <class Pred>
int64_t wait_ms(Pred pred, std::chrono::milliseconds timeout) {
  auto t0 = clock_type::now();
  while (clock_type::now() - t0 < timeout) {
    if (pred())
      return ms_since(t0);
    std::this_thread::sleep_for(5ms);
  }
  return -1;
}

int64_t stored_in(broker_proc& b) {
  int64_t sum = 0;
  for (int32_t q = 0; q < queues_per_broker; ++q) {
    auto n = b.probe->max_offset(topic, q);
    if (!n)
      return -1;
    sum += *n;
  }
  return sum;
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// The producer's side: who acknowledged message i (its keys are
// "demo-<i>"), or nobody.
struct send_tracker {
  explicit send_tracker(int n) : broker(static_cast<size_t>(n)) {
  }

  std::mutex mx;
  std::condition_variable cv;
  std::vector<std::string> broker; // empty: not acknowledged (yet)
  std::map<std::string, int64_t> by_broker;
  std::atomic<int64_t> sent{0};
  std::atomic<int64_t> acked{0};
  std::atomic<int64_t> failed{0};

  void send(rmq::producer& p, const char* topic, int i, bool sync) {
    rmq::client_message m;
    m.topic = topic;
    m.keys = "demo-" + std::to_string(i);
    m.body = "message-" + std::to_string(i);
    ++sent;
    auto done = [this, i](caf::expected<rmq::client_send_result> r) {
      std::lock_guard<std::mutex> guard{mx};
      if (r) {
        broker[static_cast<size_t>(i)] = r->queue.broker_name;
        ++by_broker[r->queue.broker_name];
        ++acked;
      } else {
        ++failed;
      }
      cv.notify_all();
    };
    if (sync)
      done(p.send(m));
    else
      p.send_async(std::move(m), std::move(done));
  }

  // Every callback ran (each is bounded by the send timeout).
  bool wait_done() {
    std::unique_lock<std::mutex> guard{mx};
    return cv.wait_for(guard, 30s, [&] { return acked + failed == sent; });
  }

  int64_t acked_by(const std::string& name) {
    std::lock_guard<std::mutex> guard{mx};
    return by_broker[name];
  }
};

// The consumers' side, from their "msg ..." lines: how often message i was
// consumed, and when and from where first.
struct consumer_tracker {
  explicit consumer_tracker(int n)
    : count(static_cast<size_t>(n)),
      latency(static_cast<size_t>(n)),
      consumed_ms(static_cast<size_t>(n)) {
  }

  std::mutex mx;
  std::vector<int> count;
  std::vector<int64_t> latency;
  std::vector<int64_t> consumed_ms;
  int64_t unique_ = 0;
  int64_t duplicates_ = 0;
  int64_t first_ms = 0;
  int64_t last_ms = 0;
  std::atomic<bool> draining{false}; // read until the output ends
  std::atomic<bool> stop{false};     // stop reading now

  // Reads one consumer's stdout until told to stop.
  void read(rmq::child_process& proc) {
    std::string line;
    while (!stop) {
      if (!proc.read_line(line, draining ? 2000ms : 100ms)) {
        if (draining)
          return;
        // At EOF read_line answers at once: do not spin.
        std::this_thread::sleep_for(10ms);
        continue;
      }
      if (line.rfind("msg ", 0) == 0)
        record(line);
    }
  }

  // "msg msgId broker queue offset reconsumeTimes bornMs consumedMs keys"
  void record(const std::string& line) {
    std::istringstream in{line};
    std::string tag, id, broker, keys;
    int64_t queue = 0, offset = 0, reconsume = 0, born = 0, consumed = 0;
    if (!(in >> tag >> id >> broker >> queue >> offset >> reconsume >> born
          >> consumed >> keys)
        || keys.rfind("demo-", 0) != 0)
      return;
    auto i = std::strtoll(keys.c_str() + 5, nullptr, 10);
    if (i < 0 || static_cast<size_t>(i) >= count.size())
      return;
    auto k = static_cast<size_t>(i);
    std::lock_guard<std::mutex> guard{mx};
    if (count[k]++ > 0) {
      ++duplicates_;
      return;
    }
    ++unique_;
    latency[k] = consumed - born;
    consumed_ms[k] = consumed;
    if (first_ms == 0 || consumed < first_ms)
      first_ms = consumed;
    last_ms = std::max(last_ms, consumed);
  }

  int64_t unique() {
    std::lock_guard<std::mutex> guard{mx};
    return unique_;
  }

  int64_t duplicates() {
    std::lock_guard<std::mutex> guard{mx};
    return duplicates_;
  }

  int64_t span_ms() {
    std::lock_guard<std::mutex> guard{mx};
    return last_ms - first_ms;
  }

  // Acknowledged, never consumed.
  int64_t missing(send_tracker& sends) {
    std::vector<bool> acked;
    {
      std::lock_guard<std::mutex> guard{sends.mx};
      for (auto& b : sends.broker)
        acked.push_back(!b.empty());
    }
    std::lock_guard<std::mutex> guard{mx};
    int64_t n = 0;
    for (size_t i = 0; i < acked.size(); ++i)
      if (acked[i] && count[i] == 0)
        ++n;
    return n;
  }

  // Of messages [0, end) that `broker` acknowledged, how many were first
  // consumed at or after `since` (wall clock ms).
  int64_t consumed_after(send_tracker& sends, const std::string& broker,
                         int end, int64_t since) {
    std::vector<bool> mine;
    {
      std::lock_guard<std::mutex> guard{sends.mx};
      for (int i = 0; i < end; ++i)
        mine.push_back(sends.broker[static_cast<size_t>(i)] == broker);
    }
    std::lock_guard<std::mutex> guard{mx};
    int64_t n = 0;
    for (size_t i = 0; i < mine.size(); ++i)
      if (mine[i] && count[i] > 0 && consumed_ms[i] >= since)
        ++n;
    return n;
  }

  std::string percentiles() {
    std::vector<int64_t> xs;
    {
      std::lock_guard<std::mutex> guard{mx};
      for (size_t i = 0; i < count.size(); ++i)
        if (count[i] > 0)
          xs.push_back(latency[i]);
    }
    if (xs.empty())
      return "none consumed";
    std::sort(xs.begin(), xs.end());
    auto at = [&](double q) {
      auto k = static_cast<size_t>(q * static_cast<double>(xs.size() - 1));
      return std::to_string(xs[k]) + " ms";
    };
    return "p50 " + at(0.5) + ", p99 " + at(0.99) + ", p999 " + at(0.999)
           + ", max " + std::to_string(xs.back()) + " ms";
  }
};

int run(demo& d, caf::actor_system& sys, const std::string& tmp) {
  auto t_start = clock_type::now();
  d.banner("starting two NameServers");
  auto ns_cmd = [&](const char* name) {
    return std::vector<std::string>{
      d.bin + "/rmq-node", "--role=namesrv", "--port=0", "--remoting-port=0",
      "--kv-config-path=" + tmp + "/" + name + "/kvConfig.json"};
  };
  auto ns1 = std::make_unique<child>(ns_cmd("ns1"));
  auto ns2 = std::make_unique<child>(ns_cmd("ns2"));
  std::vector<std::string> addrs{start_namesrv(*ns1), start_namesrv(*ns2)};
  d.check(!addrs[0].empty() && !addrs[1].empty(),
          "NameServers listening on " + addrs[0] + " and " + addrs[1] + " ("
            + std::to_string(ms_since(t_start)) + " ms)");
  if (addrs[0].empty() || addrs[1].empty())
    return 1;
  std::vector<std::unique_ptr<rmq::demo::probe>> probes;
  for (auto& addr : addrs) {
    auto where = rmq::parse_host_port(addr);
    if (!where) {
      d.check(false, "rmq-node printed a bad address '" + addr + "'");
      return 1;
    }
    probes.push_back(std::make_unique<rmq::demo::probe>(sys, *where));
    if (auto err = probes.back()->connect(5s)) {
      d.check(false, "connect to " + addr + ": " + rmq::describe(err));
      return 1;
    }
  }

  d.banner("starting two brokers: broker-a (ASYNC_FLUSH), broker-b "
           "(SYNC_FLUSH)");
  std::vector<broker_proc> brokers(2);
  brokers[0].name = "broker-a";
  brokers[0].flush = "ASYNC_FLUSH";
  brokers[1].name = "broker-b";
  brokers[1].flush = "SYNC_FLUSH";
  for (auto& b : brokers) {
    b.store = tmp + "/" + b.name;
    auto t0 = clock_type::now();
    bool up = start_broker(d, sys, b, addrs);
    d.check(up, b.name + " on " + b.addr() + " registered with both ("
                  + std::to_string(ms_since(t0)) + " ms)");
    if (!up)
      return 1;
  }

  d.banner("step 1: " + std::string{topic} + " created on both brokers");
  for (auto& b : brokers)
    if (auto err = b.probe->create_topic(topic, queues_per_broker)) {
      d.check(false, "create topic on " + b.name + ": " + rmq::describe(err));
      return 1;
    }
  // A topic change makes each broker register again at once.
  auto routed = wait_ms(
    [&] {
      for (auto& p : probes)
        for (auto& b : brokers)
          if (p->perm_of(topic, b.name) != rmq::perm::read_write)
            return false;
      return true;
    },
    5s);
  d.check(routed >= 0, "both NameServers route " + std::string{topic}
                         + " to both brokers (" + std::to_string(routed)
                         + " ms after the create)");
  d.admin(addrs[0], {"topicRoute", "-t", topic});

  d.banner("step 2: a consumer group of two push_consumer_example "
           "processes");
  std::string namesrv = addrs[0] + ";" + addrs[1];
  consumer_tracker tracker{total_messages};
  std::vector<std::unique_ptr<child>> consumers;
  for (int i = 0; i < 2; ++i)
    consumers.push_back(std::make_unique<child>(std::vector<std::string>{
      d.bin + "/push_consumer_example", "--namesrv=" + namesrv,
      "--topic=" + std::string{topic}, "--group=" + std::string{group},
      "--from=first", "--print=ids", "--threads=4",
      // A restarted broker's queues are read again within a second or
      // two, not RocketMQ's 30 s route poll + 20 s rebalance round.
      "--poll-namesrv-ms=500", "--rebalance-interval-ms=1000"}));
  std::vector<std::thread> readers;
  for (auto& c : consumers)
    readers.emplace_back([&tracker, proc = c.get()] { tracker.read(*proc); });
  // Ends the readers (and joins them) on every path, before the child
  // processes go.
  auto stop_readers = [&] {
    tracker.draining = true;
    for (auto& t : readers)
      if (t.joinable())
        t.join();
  };
  struct joiner {
    std::function<void()> fn;
    ~joiner() {
      fn();
    }
  } join_readers{[&] {
    tracker.stop = true;
    stop_readers();
  }};
  auto in_group = wait_ms(
    [&] {
      for (auto& b : brokers) {
        auto ids = b.probe->consumers(group);
        if (!ids || ids->size() != 2)
          return false;
      }
      return true;
    },
    15s);
  d.check(in_group >= 0, "both consumers joined " + std::string{group}
                           + " on both brokers (" + std::to_string(in_group)
                           + " ms)");
  if (in_group < 0)
    return 1;

  d.banner("step 3: the producer sends " + std::to_string(total_messages)
           + " messages (async, auto-batched); broker-b is killed with "
             "SIGKILL midway and restarted");
  // Before the producer: its callbacks write here until it is gone.
  send_tracker sends{total_messages};
  rmq::producer_config pcfg;
  pcfg.group = "DemoProducerGroup";
  pcfg.client.namesrv = namesrv;
  // Sees broker-b again soon after its restart (RocketMQ: 30 s).
  pcfg.client.poll_namesrv_interval = 1s;
  auto producer = rmq::spawn_producer(sys, pcfg);
  if (!producer) {
    d.check(false, "producer: " + rmq::describe(producer.error()));
    return 1;
  }
  auto t_send = clock_type::now();
  std::atomic<bool> progress_done{false};
  std::thread progress{[&] {
    while (!progress_done) {
      for (int i = 0; i < 20 && !progress_done; ++i)
        std::this_thread::sleep_for(50ms);
      std::cout << "  progress " << ms_since(t_send) << " ms: sent "
                << sends.sent << ", acknowledged " << sends.acked << ", failed "
                << sends.failed << ", consumed " << tracker.unique() << " ("
                << tracker.duplicates() << " duplicates)" << std::endl;
    }
  }};
  struct joiner stop_progress {
    [&] {
      progress_done = true;
      if (progress.joinable())
        progress.join();
    }
  };
  auto send_range = [&](int from, int to, bool sync) {
    for (int i = from; i < to; ++i)
      sends.send(*producer, topic, i, sync);
    sends.wait_done();
  };
  auto& victim = brokers[1];
  send_range(0, total_messages / 2, false);
  int64_t victim_acked = sends.acked_by(victim.name);
  std::cout << "  killing broker-b (it acknowledged " << victim_acked
            << " messages)" << std::endl;
  victim.probe.reset();
  victim.proc->signal(SIGKILL);
  victim.proc->wait(5s);
  for (auto& p : probes) {
    auto gone = wait_ms(
      [&] {
        return p->knows_broker(victim.name) == std::optional<bool>{false};
      },
      10s);
    d.check(gone >= 0, gone >= 0
                         ? p->addr() + " dropped broker-b "
                             + std::to_string(gone) + " ms after the kill"
                         : p->addr() + " still lists broker-b");
  }
  // broker-b is down: sync sends, each retried on broker-a at once. Async
  // sends queued for broker-b right after the kill stalled and timed out
  // with the producer as landed (docs/consumer.md, "Demo").
  send_range(total_messages / 2, total_messages * 3 / 4, true);
  auto t_restart = clock_type::now();
  auto restart_wall = wall_ms();
  bool back = start_broker(d, sys, victim, addrs);
  d.check(back, "broker-b restarted on its port and store, registered with "
                "both again ("
                  + std::to_string(ms_since(t_restart)) + " ms)");
  if (!back)
    return 1;
  auto kept = stored_in(victim);
  d.check(kept >= victim_acked,
          "broker-b kept " + std::to_string(kept) + " messages of the "
            + std::to_string(victim_acked)
            + " it acknowledged before the kill (SYNC_FLUSH)");
  send_range(total_messages * 3 / 4, total_messages, false);
  auto send_ms = std::max<int64_t>(ms_since(t_send), 1);
  producer->shutdown();
  int64_t acked = sends.acked;
  d.check(sends.acked + sends.failed == total_messages,
          std::to_string(total_messages) + " sent in " + std::to_string(send_ms)
            + " ms: " + std::to_string(acked) + " acknowledged (broker-a "
            + std::to_string(sends.acked_by("broker-a")) + ", broker-b "
            + std::to_string(sends.acked_by("broker-b")) + "), "
            + std::to_string(sends.failed) + " failed");

  d.banner("step 4: the consumers get every acknowledged message");
  auto all_in = wait_ms([&] { return tracker.missing(sends) == 0; }, 30s);
  auto victim_after = tracker.consumed_after(sends, victim.name,
                                             total_messages / 2, restart_wall);
  d.check(all_in >= 0,
          all_in >= 0
            ? "every acknowledged message consumed (" + std::to_string(all_in)
                + " ms after the last send; " + std::to_string(victim_after)
                + " of broker-b's consumed after its restart)"
            : "acknowledged messages still not consumed 30 s "
              "after the last send");
  stop_progress.fn();
  int64_t stored = 0;
  for (auto& b : brokers)
    stored += std::max<int64_t>(stored_in(b), 0);
  auto lost = tracker.missing(sends);
  auto consume_ms = std::max<int64_t>(tracker.span_ms(), 1);
  d.check(stored >= acked, std::to_string(stored)
                             + " stored on the brokers (max offsets), "
                             + std::to_string(acked) + " acknowledged");
  d.lines.push_back(
    "sent " + std::to_string(total_messages) + ", acknowledged "
    + std::to_string(acked) + ", stored " + std::to_string(stored)
    + ", consumed " + std::to_string(tracker.unique())
    + " (unique), duplicates " + std::to_string(tracker.duplicates())
    + ", lost " + std::to_string(lost));
  d.lines.push_back("throughput: " + std::to_string(acked * 1000 / send_ms)
                    + " msgs/s sent, "
                    + std::to_string(tracker.unique() * 1000 / consume_ms)
                    + " msgs/s consumed");
  d.lines.push_back("e2e latency (consumed - born): " + tracker.percentiles());
  d.admin(addrs[1], {"clusterList"});
  d.admin(addrs[0], {"consumerProgress", "-g", group});

  d.banner("step 5: the consumers leave their group on SIGTERM");
  for (auto& c : consumers)
    c->signal(SIGTERM);
  stop_readers();
  for (size_t i = 0; i < consumers.size(); ++i) {
    auto rc = consumers[i]->wait(15s);
    d.check(rc == 0, "consumer " + std::to_string(i + 1) + " exited with "
                       + std::to_string(rc) + " after SIGTERM");
  }
  d.check(lost == 0, "lost " + std::to_string(lost)
                       + " (acknowledged but never consumed)");

  d.banner("step 6: the cluster stops on SIGTERM");
  probes.clear();
  std::vector<std::pair<std::string, child*>> order;
  for (auto& b : brokers) {
    b.probe.reset();
    order.emplace_back(b.name, b.proc.get());
  }
  order.emplace_back(addrs[0], ns1.get());
  order.emplace_back(addrs[1], ns2.get());
  for (auto& [name, proc] : order) {
    auto t_term = clock_type::now();
    proc->signal(SIGTERM);
    auto rc = proc->wait(15s);
    d.check(rc == 0, name + " exited with " + std::to_string(rc)
                       + " after SIGTERM (" + std::to_string(ms_since(t_term))
                       + " ms)");
  }
  d.lines.push_back("total: " + std::to_string(ms_since(t_start)) + " ms");
  return d.ok ? 0 : 1;
}

} // namespace

int main() {
  // Piped into `head`, the demo must still stop its children and remove
  // its folder: a closed stdout is an error on write, not a kill.
  std::signal(SIGPIPE, SIG_IGN);
  char tmpl[] = "/tmp/rmq-demo-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("rmq-demo: mkdtemp");
    return 1;
  }
  std::string tmp = tmpl;
  demo d;
  int rc = 1;
  {
    rmq::node_config cfg;
    cfg.load_network(); // plain TCP: nothing to check
    caf::actor_system sys{cfg};
    rc = run(d, sys, tmp);
  }
  std::cout << "\n=== summary ===" << std::endl;
  for (auto& line : d.lines)
    std::cout << line << std::endl;
  std::cout << (rc == 0 ? "PASS" : "FAIL") << std::endl;
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  return rc;
}
