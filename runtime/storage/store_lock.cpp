#include "runtime/storage/store_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "messages/common/errors.hpp"
#include "runtime/storage/mapped_file.hpp"

namespace rmq::storage {

namespace {

// The pid the holder wrote, or "unknown" (it may not have written it yet).
std::string holder_pid(int fd) {
  char buf[32] = {};
  auto n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i)
    pid += buf[i];
  return pid.empty() ? "unknown" : pid;
}

} // namespace

caf::expected<store_lock> store_lock::acquire(const std::string& dir) {
  if (auto err = make_dirs(dir))
    return err;
  auto path = dir + "/lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error(errc::io_error,
                      "cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    auto why = errno;
    std::string text;
    if (why == EWOULDBLOCK)
      text = "store " + dir + " is in use by another process (pid "
             + holder_pid(fd)
             + "): one process per store; stop it or choose another "
               "--store-dir";
    else
      text = "cannot lock " + path + ": " + std::strerror(why);
    ::close(fd);
    return make_error(why == EWOULDBLOCK ? errc::service_not_available
                                         : errc::io_error,
                      std::move(text));
  }
  // Without the pid the lock holds all the same; a second process then
  // names no holder.
  auto pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0)
    (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  return store_lock{fd};
}

store_lock::store_lock(store_lock&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)) {
}

store_lock& store_lock::operator=(store_lock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

store_lock::~store_lock() {
  if (fd_ >= 0)
    ::close(fd_);
}

} // namespace rmq::storage
