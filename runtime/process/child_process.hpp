// A child process (rmq-node, rmq-admin, a stand-in broker) for the demo,
// the benchmarks and the system tests: stdout piped to us, stderr shared
// unless quiet, killed (SIGKILL) and reaped by the destructor so every exit
// path cleans up. Children also get PR_SET_PDEATHSIG, so they die with their
// parent even if the parent itself is killed.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace rmq {

/// Directory of the running executable (/proc/self/exe), where the sibling
/// executables (rmq-node, rmq-admin, standin-broker) live.
std::string exe_dir();

class child_process {
public:
  /// Starts `argv[0]` (a path); `quiet_stderr` sends its stderr to
  /// /dev/null.
  explicit child_process(std::vector<std::string> argv,
                         bool quiet_stderr = false);

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  ~child_process();

  bool started() const {
    return pid_ > 0;
  }

  bool running() const {
    return pid_ > 0 && !reaped_;
  }

  pid_t pid() const {
    return pid_;
  }

  /// Reads the next stdout line; false at EOF or timeout.
  bool read_line(std::string& line,
                 std::chrono::milliseconds timeout = std::chrono::seconds{10});

  /// Reads lines until one starts with `prefix`; returns the rest of it.
  bool wait_for(const std::string& prefix, std::string& rest,
                std::chrono::milliseconds timeout = std::chrono::seconds{10});

  void signal(int sig);

  /// Returns the exit code, 128 + signal, or -1 on timeout.
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds{10});

private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buf_;
};

/// Runs a command to completion; returns its exit code (-1 on timeout) and
/// its stdout in `out`.
int run_command(std::vector<std::string> argv, std::string& out,
                std::chrono::milliseconds timeout = std::chrono::seconds{30});

} // namespace rmq
