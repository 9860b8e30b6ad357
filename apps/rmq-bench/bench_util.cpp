#include "apps/rmq-bench/bench_util.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace rmq::bench {

double cpu_seconds(const std::string& pid) {
  std::ifstream in{"/proc/" + pid + "/stat"};
  std::string text;
  std::getline(in, text);
  // Fields after the command name, which is in parentheses and may hold
  // spaces: state is field 3, utime 14, stime 15.
  auto close = text.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream rest{text.substr(close + 2)};
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i >= 14)
      ticks += std::strtod(field.c_str(), nullptr);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

void cpu_meter::start() {
  b0 = cpu_seconds(broker_pid);
  s0 = cpu_seconds("self");
  t0 = std::chrono::steady_clock::now();
}

void cpu_meter::stop() {
  b1 = cpu_seconds(broker_pid);
  s1 = cpu_seconds("self");
  wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
           .count();
}

std::string cpu_meter::text() const {
  if (wall <= 0)
    return "";
  // A broker the bench did not start: its CPU is not known.
  auto broker = broker_pid.empty()
                  ? std::string{"?"}
                  : std::to_string(static_cast<int>(100 * (b1 - b0) / wall));
  return "broker " + broker + " % CPU, bench "
         + std::to_string(static_cast<int>(100 * (s1 - s0) / wall)) + " %";
}

std::pair<double, double> cpu_meter::per_msg_us(uint64_t msgs) const {
  if (msgs == 0)
    return {0, 0};
  auto n = static_cast<double>(msgs);
  return {1e6 * (b1 - b0) / n, 1e6 * (s1 - s0) / n};
}

double median(std::vector<double> xs) {
  if (xs.empty())
    return 0;
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

double percentile(const std::vector<double>& xs, double q) {
  if (xs.empty())
    return 0;
  auto idx = static_cast<size_t>(q * static_cast<double>(xs.size() - 1));
  return xs[idx];
}

namesrv_child::~namesrv_child() {
  if (proc && proc->running()) {
    proc->signal(SIGTERM);
    proc->wait();
  }
}

std::unique_ptr<namesrv_child>
start_namesrv(const std::vector<std::string>& extra_args) {
  auto node = exe_dir() + "/rmq-node";
  auto result = std::make_unique<namesrv_child>();
  std::vector<std::string> argv{node,
                                "--role=namesrv",
                                "--port=0",
                                "--remoting-port=0",
                                "--kv-config-path=",
                                "--log-level=warn"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  result->proc = std::make_unique<child_process>(std::move(argv));
  if (!result->proc->wait_for("namesrv listening on ", result->address)) {
    std::cerr << "rmq-node did not start (" << node << ")\n";
    return nullptr;
  }
  return result;
}

std::pair<long, long> rss_kib(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  long rss = -1, anon = -1;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0)
      rss = std::stol(line.substr(6));
    else if (line.rfind("RssAnon:", 0) == 0)
      anon = std::stol(line.substr(8));
  }
  return {rss, anon};
}

const nlohmann::json* find_part(const nlohmann::json& j, const char* name) {
  if (j.is_object()) {
    auto it = j.find("actor");
    if (it != j.end() && *it == name)
      return &j;
  }
  if (j.is_object() || j.is_array())
    for (auto& x : j)
      if (auto found = find_part(x, name))
        return found;
  return nullptr;
}

void report_line(verdicts& v, const std::string& what, const std::string& value,
                 const std::string& base, const std::string& ratio,
                 const std::string& target, std::optional<bool> met,
                 report_widths w) {
  std::cout << "  " << std::left << std::setw(w.what) << what << std::right
            << std::setw(w.value) << value << std::setw(24) << base
            << std::setw(9) << ratio << "  " << target;
  if (met) {
    std::cout << (*met ? "  PASS" : "  MISS");
    (*met ? v.pass : v.miss)++;
  }
  std::cout << '\n';
}

} // namespace rmq::bench
