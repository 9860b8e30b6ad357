// rmq-demo: a local cluster doing real work, and what an operator sees.
//   build/rmq-demo
// Starts two `rmq-node --role=namesrv` and two `rmq-node --role=broker`
// (broker-a with async flush, broker-b with sync flush) on free loopback
// ports, then:
//   1. creates DemoTopic on both brokers: both NameServers route it to both;
//   2. sends 20,000 messages in batches, spread over every queue;
//   3. pulls every queue back and checks each message arrived once; a held
//      pull is answered by a send;
//   4. kills broker-b with SIGKILL: both NameServers drop it at once;
//   5. restarts broker-b on its port and store: it registers again and
//      every message it acknowledged is still there;
//   6. stops everything with SIGTERM (exit code 0 each).
// Ends with a summary; exits 0 if every step went as expected, else 1.
// Child processes are killed on every path (RAII, plus PR_SET_PDEATHSIG).
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <stdlib.h>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"

#include "apps/rmq-demo/broker_probe.hpp"
#include "apps/rmq-demo/probe.hpp"
#include "messages/errors.hpp"
#include "runtime/child_process.hpp"
#include "runtime/free_port.hpp"
#include "runtime/host_port.hpp"
#include "runtime/node_config.hpp"

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
constexpr int batch_size = 100;

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
    "--port=" + std::to_string(b.port), "--store-dir=" + b.store,
    "--flush-disk-type=" + b.flush, "--mapped-file-size-commit-log=67108864",
    "--log-level=warn"});
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

// Pulls every queue of `b` from 0; adds each body to `seen` and answers
// how many it got (-1 on an error).
int64_t consume_all(broker_proc& b, std::map<std::string, int>& seen) {
  int64_t got = 0;
  for (int32_t q = 0; q < queues_per_broker; ++q) {
    int64_t offset = 0;
    auto max = b.probe->max_offset(topic, q);
    if (!max)
      return -1;
    while (offset < *max) {
      auto res = b.probe->pull(topic, q, offset);
      if (!res || res->bodies.empty())
        return -1;
      for (auto& body : res->bodies)
        ++seen[body];
      got += static_cast<int64_t>(res->bodies.size());
      offset = res->next_offset;
    }
  }
  return got;
}

int run(demo& d, caf::actor_system& sys, const std::string& tmp) {
  auto t_start = clock_type::now();
  d.banner("starting two NameServers");
  auto ns_cmd = [&](const char* name) {
    return std::vector<std::string>{
      d.bin + "/rmq-node", "--role=namesrv", "--port=0",
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

  d.banner("step 2: sending " + std::to_string(total_messages)
           + " messages in batches of " + std::to_string(batch_size));
  auto t_send = clock_type::now();
  int sent = 0;
  int next_report = total_messages / 5;
  for (int i = 0; sent < total_messages; ++i) {
    auto& b = brokers[static_cast<size_t>(i) % brokers.size()];
    auto queue = static_cast<int32_t>((i / 2) % queues_per_broker);
    std::vector<std::string> bodies;
    for (int k = 0; k < batch_size && sent + k < total_messages; ++k)
      bodies.push_back("message-" + std::to_string(sent + k));
    auto res = b.probe->send_batch(topic, queue, bodies);
    if (!res) {
      d.check(false, "send to " + b.name + ": " + rmq::describe(res.error()));
      return 1;
    }
    b.acked += static_cast<int64_t>(bodies.size());
    sent += static_cast<int>(bodies.size());
    if (sent >= next_report) {
      std::cout << "  sent " << sent << " / " << total_messages << " ("
                << ms_since(t_send) << " ms)" << std::endl;
      next_report += total_messages / 5;
    }
  }
  auto send_ms = std::max<int64_t>(ms_since(t_send), 1);
  int64_t acked = brokers[0].acked + brokers[1].acked;
  d.check(acked == total_messages,
          std::to_string(acked) + " messages acknowledged in "
            + std::to_string(send_ms) + " ms ("
            + std::to_string(acked * 1000 / send_ms) + " msgs/s; broker-a "
            + std::to_string(brokers[0].acked) + ", broker-b "
            + std::to_string(brokers[1].acked) + ")");
  d.lines.push_back("throughput: " + std::to_string(acked * 1000 / send_ms)
                    + " msgs/s sent in batches of "
                    + std::to_string(batch_size));

  d.banner("step 3: pulling every queue back");
  auto t_pull = clock_type::now();
  std::map<std::string, int> seen;
  int64_t consumed = 0;
  for (auto& b : brokers) {
    auto got = consume_all(b, seen);
    d.check(got == b.acked, b.name + ": " + std::to_string(got)
                              + " messages pulled of " + std::to_string(b.acked)
                              + " acknowledged");
    consumed += std::max<int64_t>(got, 0);
  }
  int duplicates = 0;
  for (auto& [body, n] : seen)
    duplicates += n - 1;
  int64_t lost = total_messages - static_cast<int64_t>(seen.size());
  d.check(lost == 0 && duplicates == 0,
          std::to_string(seen.size()) + " distinct messages consumed in "
            + std::to_string(ms_since(t_pull)) + " ms: lost "
            + std::to_string(lost) + ", duplicates "
            + std::to_string(duplicates));
  // A pull at the end of a queue is held until a message arrives.
  {
    auto& b = brokers[0];
    auto end = b.probe->max_offset(topic, 0);
    int64_t held_ms = -1;
    if (end) {
      rmq::demo::broker_probe sender{sys, rmq::host_port{"127.0.0.1", b.port}};
      if (!sender.connect(5s)) {
        std::thread later{[&] {
          std::this_thread::sleep_for(200ms);
          sender.send_batch(topic, 0, {"wake-up"});
        }};
        auto t0 = clock_type::now();
        auto res = b.probe->pull(topic, 0, *end, 15s);
        held_ms = ms_since(t0);
        later.join();
        if (!res || res->bodies.size() != 1)
          held_ms = -1;
      }
    }
    d.check(held_ms >= 0, "a held pull was answered by a send after "
                            + std::to_string(held_ms)
                            + " ms (the send came 200 ms after the pull)");
    if (held_ms >= 0)
      ++b.acked;
  }
  d.lines.push_back("sent " + std::to_string(total_messages + 1)
                    + ", acknowledged " + std::to_string(acked + 1)
                    + ", consumed " + std::to_string(consumed + 1)
                    + ", duplicates " + std::to_string(duplicates) + ", lost "
                    + std::to_string(lost));

  d.banner("step 4: broker-b is killed with SIGKILL");
  auto& victim = brokers[1];
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

  d.banner("step 5: broker-b restarts on its port and store");
  auto t_restart = clock_type::now();
  bool back = start_broker(d, sys, victim, addrs);
  d.check(back, "broker-b registered with both again ("
                  + std::to_string(ms_since(t_restart)) + " ms)");
  if (!back)
    return 1;
  auto kept = stored_in(victim);
  d.check(kept == victim.acked,
          "broker-b kept " + std::to_string(kept) + " of the "
            + std::to_string(victim.acked)
            + " messages it acknowledged under SYNC_FLUSH");
  d.admin(addrs[1], {"clusterList"});

  d.banner("step 6: everything stops on SIGTERM");
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
