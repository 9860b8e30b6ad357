// Small helpers shared by rmq-bench's subcommands: flags, statistics and a
// child NameServer process.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/child_process.hpp"

namespace rmq::bench {

/// Parses --name=value / --name value flags into variables.
class flag_parser {
public:
  explicit flag_parser(std::string usage) : usage_(std::move(usage)) {
    // nop
  }

  void add(std::string name, std::string& var, std::string help);
  void add(std::string name, int& var, std::string help);

  /// Returns -1 to go on, or the exit code (0 after --help, 2 on errors).
  int parse(int argc, char** argv);

private:
  struct flag {
    std::string name;
    std::string help;
    std::function<bool(const std::string&)> set;
  };
  std::string usage_;
  std::vector<flag> flags_;
};

double median(std::vector<double> xs);

/// `xs` must be sorted.
double percentile(const std::vector<double>& xs, double q);

/// A NameServer started by the bench; stopped when this goes away.
struct namesrv_child {
  std::unique_ptr<child_process> proc;
  std::string address;
  ~namesrv_child();
};

/// Starts `rmq-node --role=namesrv --port=0` (memory-only KV config, plus
/// `extra_args`) from the bench's own directory and waits for its address;
/// null on failure.
std::unique_ptr<namesrv_child>
start_namesrv(const std::vector<std::string>& extra_args = {});

} // namespace rmq::bench
