// A child process of the demo: stdout piped to us, stderr shared, killed
// (SIGKILL) and reaped by the destructor, so every exit path of the demo
// cleans up. Children also get PR_SET_PDEATHSIG, so they die with the demo
// even if the demo itself is killed.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace rmq::demo {

/// Directory of the running executable (/proc/self/exe), where the sibling
/// executables (rmq-node, rmq-admin, standin_broker) live.
std::string exe_dir();

class child {
public:
  explicit child(std::vector<std::string> argv);

  child(const child&) = delete;
  child& operator=(const child&) = delete;

  ~child();

  bool started() const {
    return pid_ > 0;
  }

  /// Reads the next stdout line; false at EOF or timeout.
  bool read_line(std::string& line, std::chrono::milliseconds timeout);

  /// Reads lines until one starts with `prefix`; returns the rest of it.
  bool wait_for(const std::string& prefix, std::string& rest,
                std::chrono::milliseconds timeout);

  void signal(int sig);

  /// Returns the exit code, 128 + signal, or -1 on timeout.
  int wait(std::chrono::milliseconds timeout);

private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buf_;
};

/// Runs a command to completion; returns its exit code (-1 on timeout) and
/// its stdout in `out`.
int run(std::vector<std::string> argv, std::string& out,
        std::chrono::milliseconds timeout);

} // namespace rmq::demo
