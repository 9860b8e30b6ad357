// Starts a real process (rmq-node, a writer, a client) for system tests,
// reads its stdout line by line, and always kills it when the test ends.
#pragma once

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include <sys/types.h>

namespace rmq::test {

/// Directory that holds the built executables (rmq-node, rmq-admin, ...).
std::string bin_dir();

class child_process {
public:
  /// Starts `argv[0]` (a path) with the given arguments; stdout is piped to
  /// us, stderr goes to ours unless `quiet_stderr` is set.
  explicit child_process(std::vector<std::string> argv,
                         bool quiet_stderr = false);

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// Sends SIGKILL if still running and reaps the process.
  ~child_process();

  /// Reads the next stdout line; false at EOF or when `timeout` passes.
  bool read_line(std::string& line,
                 std::chrono::milliseconds timeout = std::chrono::seconds{10});

  /// Reads lines until one starts with `prefix`; returns the rest of it.
  bool wait_for(const std::string& prefix, std::string& rest,
                std::chrono::milliseconds timeout = std::chrono::seconds{10});

  /// Sends a signal (SIGTERM, SIGKILL, ...).
  void signal(int sig);

  /// Waits for the exit; returns the exit code, 128+signal for a signal, or
  /// -1 on timeout.
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds{10});

  pid_t pid() const {
    return pid_;
  }

  bool running() const {
    return pid_ > 0 && !reaped_;
  }

private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buf_;
};

/// Runs a command to completion; returns its exit code and captures stdout.
int run_command(std::vector<std::string> argv, std::string& out,
                std::chrono::milliseconds timeout = std::chrono::seconds{30});

} // namespace rmq::test
