// rmq-demo: two NameServers, one stand-in broker, and what an operator sees.
//   build/rmq-demo
// Starts two `rmq-node --role=namesrv` on free loopback ports, a
// `standin_broker` registering TopicA and TopicB with both, and prints the
// routes of each NameServer (through rmq-admin) after each step:
//   1. the broker registered with both NameServers;
//   2. an operator wiped the broker's write perm on the first one only;
//   3. the broker was killed with SIGKILL: both drop it within a second;
//   4. both NameServers stop on SIGTERM with exit code 0.
// Ends with a summary; exits 0 if every step went as expected, else 1.
// Child processes are killed on every path (RAII, plus PR_SET_PDEATHSIG).
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <stdlib.h>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"

#include "apps/rmq-demo/probe.hpp"
#include "messages/errors.hpp"
#include "runtime/child_process.hpp"
#include "runtime/node_config.hpp"

using namespace std::chrono_literals;

namespace {

using clock_type = std::chrono::steady_clock;
using child = rmq::child_process;

constexpr const char* broker_name = "broker-a";
constexpr const char* topic = "TopicA";

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

  void show_routes(const std::vector<std::string>& addrs) {
    for (auto& addr : addrs) {
      admin(addr, {"topicRoute", "-t", topic});
      admin(addr, {"clusterList"});
    }
  }
};

// Starts a NameServer on a free port; returns "127.0.0.1:<port>" or "".
std::string start_namesrv(child& proc) {
  std::string rest;
  if (!proc.started() || !proc.wait_for("namesrv listening on ", rest, 10s))
    return {};
  return rest;
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

  d.banner("step 1: the stand-in broker registers with both");
  auto t_reg = clock_type::now();
  child broker{
    {d.bin + "/standin_broker", "--namesrv=" + addrs[0] + ";" + addrs[1],
     "--broker-name=" + std::string{broker_name}, "--topics=TopicA,TopicB",
     "--queues=4", "--heartbeat-interval-ms=1000"}};
  int registered = 0;
  std::string line;
  while (registered < 2 && broker.read_line(line, 10s)) {
    std::cout << "standin_broker: " << line << std::endl;
    if (line.rfind("registered with ", 0) == 0)
      ++registered;
  }
  d.check(registered == 2, "broker registered with both NameServers ("
                             + std::to_string(ms_since(t_reg)) + " ms)");
  for (auto& p : probes)
    d.check(p->perm_of(topic, broker_name) == rmq::perm::read_write,
            p->addr() + " routes TopicA to broker-a with perm 6");
  d.show_routes(addrs);

  d.banner("step 2: an operator wipes broker-a's write perm on " + addrs[0]);
  d.admin(addrs[0], {"wipeWritePerm", "-b", broker_name});
  d.check(probes[0]->perm_of(topic, broker_name) == rmq::perm::read,
          addrs[0] + " now routes TopicA read-only (perm 4)");
  d.check(probes[1]->perm_of(topic, broker_name) == rmq::perm::read_write,
          addrs[1] + " still routes TopicA read-write (perm 6)");
  d.show_routes(addrs);

  d.banner("step 3: the broker is killed with SIGKILL");
  broker.signal(SIGKILL);
  auto t_kill = clock_type::now();
  std::vector<int64_t> removed_after(addrs.size(), -1);
  // A generous bound, far below the 120 s heartbeat timeout: removal this
  // early can only come from the lost connection. Each probe is a round
  // trip to the NameServer, which paces the loop.
  auto deadline = t_kill + 10s;
  while (clock_type::now() < deadline) {
    bool all = true;
    for (size_t i = 0; i < probes.size(); ++i) {
      if (removed_after[i] < 0
          && probes[i]->knows_broker(broker_name) == std::optional<bool>{false})
        removed_after[i] = ms_since(t_kill);
      all = all && removed_after[i] >= 0;
    }
    if (all)
      break;
  }
  broker.wait(5s);
  for (size_t i = 0; i < addrs.size(); ++i)
    d.check(removed_after[i] >= 0,
            removed_after[i] >= 0
              ? "broker removed from routes of " + addrs[i] + " "
                  + std::to_string(removed_after[i]) + " ms after the kill"
              : "broker still routed by " + addrs[i] + " 10 s after the kill");
  d.show_routes(addrs);

  d.banner("step 4: both NameServers stop on SIGTERM");
  probes.clear();
  for (size_t i = 0; i < addrs.size(); ++i) {
    auto& ns = i == 0 ? ns1 : ns2;
    auto t_term = clock_type::now();
    ns->signal(SIGTERM);
    auto rc = ns->wait(10s);
    d.check(rc == 0, addrs[i] + " exited with " + std::to_string(rc)
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
