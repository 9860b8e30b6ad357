// Small helpers shared by rmq-bench's subcommands: statistics and a child
// NameServer process. Flags use rmq::option_parser.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json_fwd.hpp>

#include "runtime/process/child_process.hpp"
#include "runtime/process/option_parser.hpp"

namespace rmq::bench {

double median(std::vector<double> xs);

/// `xs` must be sorted.
double percentile(const std::vector<double>& xs, double q);

/// CPU time (user + system) process `pid` ("self" for this one) used so
/// far, in seconds (/proc/PID/stat; 0 when unknown).
double cpu_seconds(const std::string& pid);

/// The CPU use of the broker and of this process over a run: in percent
/// of one core, and per message (the figure a loaded machine does not
/// change much).
struct cpu_meter {
  std::string broker_pid;
  double b0 = 0, s0 = 0, b1 = 0, s1 = 0, wall = 0;
  std::chrono::steady_clock::time_point t0;
  void start();
  /// Ends the run; `text()` and `per_msg_us` describe it from then on.
  void stop();
  /// "broker N % CPU, bench M %" ("" when unknown).
  std::string text() const;
  /// CPU microseconds per message of the broker and of this process.
  std::pair<double, double> per_msg_us(uint64_t msgs) const;
};

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

/// Resident memory of a process from /proc: VmRSS and RssAnon in KiB
/// (mapped store files count in the first, only heap in the second).
std::pair<long, long> rss_kib(pid_t pid);

/// One actor's part of a node dump (the object whose "actor" is `name`),
/// or null.
const nlohmann::json* find_part(const nlohmann::json& j, const char* name);

/// The PASS / MISS count of a bench's report.
struct verdicts {
  int pass = 0;
  int miss = 0;
};

/// Column widths of `report_line`'s name and value.
struct report_widths {
  int what = 34;
  int value = 22;
};

/// Prints one figure, its baseline and ratio, and the target, with PASS
/// or MISS (counted in `v`) when `met` says.
void report_line(verdicts& v, const std::string& what, const std::string& value,
                 const std::string& base, const std::string& ratio,
                 const std::string& target, std::optional<bool> met,
                 report_widths w = {});

} // namespace rmq::bench
