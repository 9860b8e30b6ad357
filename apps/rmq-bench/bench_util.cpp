#include "apps/rmq-bench/bench_util.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <sys/wait.h>
#include <unistd.h>

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

child::~child() {
  if (pid > 0) {
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
  }
}

std::string self_dir() {
  char buf[4096];
  auto n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return ".";
  std::string path{buf, static_cast<size_t>(n)};
  return path.substr(0, path.rfind('/'));
}

std::unique_ptr<child> start_namesrv() {
  int fds[2];
  if (pipe(fds) != 0)
    return nullptr;
  auto result = std::make_unique<child>();
  auto node = self_dir() + "/rmq-node";
  result->pid = fork();
  if (result->pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(node.c_str(), node.c_str(), "--role=namesrv", "--port=0",
          "--kv-config-path=", "--log-level=warn", nullptr);
    _exit(127);
  }
  close(fds[1]);
  auto in = fdopen(fds[0], "r");
  char line[512];
  const std::string prefix = "namesrv listening on ";
  while (in && fgets(line, sizeof(line), in)) {
    std::string text = line;
    if (text.compare(0, prefix.size(), prefix) == 0) {
      result->address = text.substr(prefix.size());
      while (!result->address.empty() && result->address.back() == '\n')
        result->address.pop_back();
      return result;
    }
  }
  std::cerr << "rmq-node did not start (" << node << ")\n";
  return nullptr;
}

} // namespace rmq::bench
