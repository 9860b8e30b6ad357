#include "apps/rmq-bench/bench_util.hpp"

#include <algorithm>
#include <csignal>
#include <iostream>


namespace rmq::bench {

void flag_parser::add(std::string name, std::string& var, std::string help) {
  flags_.push_back({std::move(name), std::move(help),
                    [&var](const std::string& x) {
                      var = x;
                      return true;
                    }});
}

void flag_parser::add(std::string name, int& var, std::string help) {
  flags_.push_back({std::move(name), std::move(help),
                    [&var](const std::string& x) {
                      try {
                        var = std::stoi(x);
                        return true;
                      } catch (...) {
                        return false;
                      }
                    }});
}

int flag_parser::parse(int argc, char** argv) {
  auto usage = [&](int rc) {
    std::cerr << "usage: " << usage_ << " [flags]\n";
    for (auto& f : flags_)
      std::cerr << "  --" << f.name << "\t" << f.help << '\n';
    return rc;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h")
      return usage(0);
    if (arg.compare(0, 2, "--") != 0)
      return usage(2);
    auto eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? eq : eq - 2);
    std::string value;
    if (eq != std::string::npos)
      value = arg.substr(eq + 1);
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return usage(2);
    auto f = std::find_if(flags_.begin(), flags_.end(),
                          [&](const flag& x) { return x.name == name; });
    if (f == flags_.end() || !f->set(value)) {
      std::cerr << "bad flag: " << arg << '\n';
      return usage(2);
    }
  }
  return -1;
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
