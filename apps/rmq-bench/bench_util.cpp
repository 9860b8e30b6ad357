#include "apps/rmq-bench/bench_util.hpp"

#include <algorithm>
#include <csignal>
#include <iostream>

namespace rmq::bench {

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
  std::vector<std::string> argv{node, "--role=namesrv", "--port=0",
                                "--kv-config-path=", "--log-level=warn"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  result->proc = std::make_unique<child_process>(std::move(argv));
  if (!result->proc->wait_for("namesrv listening on ", result->address)) {
    std::cerr << "rmq-node did not start (" << node << ")\n";
    return nullptr;
  }
  return result;
}

} // namespace rmq::bench
