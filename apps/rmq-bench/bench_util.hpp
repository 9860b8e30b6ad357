// Small helpers shared by rmq-bench's subcommands: statistics and a child
// NameServer process. Flags use rmq::option_parser.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/child_process.hpp"
#include "runtime/option_parser.hpp"

namespace rmq::bench {

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
