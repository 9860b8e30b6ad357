// A push consumer process (push_consumer_example --print=ids) and a
// thread that collects the messages it prints, for system tests that
// watch a real consumer move between brokers and nodes.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "tests/support/child_process.hpp"

namespace rmq::test {

/// One "msg ..." line of push_consumer_example --print=ids.
struct consumed {
  std::string msg_id;
  std::string broker;
  int32_t queue = 0;
  int64_t offset = 0;
  std::string keys;
};

/// A consumer process and a thread that collects its lines.
class consumer_proc {
public:
  explicit consumer_proc(std::vector<std::string> argv)
    : proc_(std::move(argv), false) {
    reader_ = std::thread{[this] {
      std::string line;
      // EOF when the process exits; the bound only ends a hung one.
      while (proc_.read_line(line, std::chrono::seconds{60})) {
        if (line.rfind("msg ", 0) != 0)
          continue;
        std::istringstream in{line.substr(4)};
        consumed c;
        std::string reconsume, born, at;
        in >> c.msg_id >> c.broker >> c.queue >> c.offset >> reconsume >> born
          >> at >> c.keys;
        std::lock_guard<std::mutex> guard{mx_};
        lines_.push_back(std::move(c));
      }
    }};
  }

  consumer_proc(const consumer_proc&) = delete;
  consumer_proc& operator=(const consumer_proc&) = delete;

  ~consumer_proc() {
    proc_.signal(SIGKILL);
    proc_.wait(std::chrono::seconds{5});
    reader_.join();
  }

  bool started() const {
    return proc_.started();
  }

  size_t size() {
    std::lock_guard<std::mutex> guard{mx_};
    return lines_.size();
  }

  std::vector<consumed> lines() {
    std::lock_guard<std::mutex> guard{mx_};
    return lines_;
  }

  /// Sends `sig` and answers the exit code (128 + signal for a kill).
  // Bounded above the consumer's own shutdown: it waits up to 10 s
  // (shutdown_wait) for batches at its workers, then commits and leaves
  // its group; on a loaded 2-core box that once took longer than 10 s.
  int stop(int sig) {
    proc_.signal(sig);
    return proc_.wait(std::chrono::seconds{30});
  }

private:
  child_process proc_;
  std::mutex mx_;
  std::vector<consumed> lines_;
  std::thread reader_;
};

} // namespace rmq::test
