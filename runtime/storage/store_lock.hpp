// One process per store (RocketMQ's `lock` file): an exclusive flock on
// `<store dir>/lock`, taken before anything else in the folder is read.
// A second broker, a second start of the same command or `verifyStore` on
// a live store would otherwise recover, write or judge files another
// process is writing: acknowledged messages were lost that way. The
// kernel drops the lock with the process, so a SIGKILLed broker leaves
// nothing stale behind.
#pragma once

#include <string>

#include "caf/expected.hpp"

namespace rmq::storage {

class store_lock {
public:
  /// Creates `dir` if it is missing and locks it; the lock file then
  /// holds this process's pid. Fails at once (errc::service_not_available)
  /// naming the folder and the holder's pid when another process, or
  /// another open store of this one, holds it.
  static caf::expected<store_lock> acquire(const std::string& dir);

  store_lock() = default;
  store_lock(store_lock&& other) noexcept;
  store_lock& operator=(store_lock&& other) noexcept;
  store_lock(const store_lock&) = delete;
  store_lock& operator=(const store_lock&) = delete;
  /// Releases the lock (the file stays, as RocketMQ's does).
  ~store_lock();

  bool held() const {
    return fd_ >= 0;
  }

private:
  explicit store_lock(int fd) : fd_(fd) {
  }
  int fd_ = -1;
};

} // namespace rmq::storage
