#include "runtime/net/tcp_probe.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "caf/sec.hpp"

namespace rmq {

namespace {

caf::error refused(const std::string& host, uint16_t port,
                   const std::string& why) {
  return caf::make_error(caf::sec::cannot_connect_to_node,
                         host + ":" + std::to_string(port) + ": " + why);
}

} // namespace

caf::error tcp_probe(const std::string& host, uint16_t port,
                     std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (auto rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
      rc != 0)
    return refused(host, port, gai_strerror(rc));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string why = "no address";
  for (auto* ai = found; ai != nullptr; ai = ai->ai_next) {
    int fd = socket(ai->ai_family,
                    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      pollfd p{fd, POLLOUT, 0};
      rc = left.count() > 0 ? poll(&p, 1, static_cast<int>(left.count())) : 0;
      if (rc == 1) {
        int err = 0;
        socklen_t len = sizeof(err);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        rc = err == 0 ? 0 : -1;
        errno = err;
      } else if (rc == 0) {
        rc = -1;
        errno = ETIMEDOUT;
      }
    }
    auto saved = errno;
    close(fd);
    if (rc == 0) {
      freeaddrinfo(found);
      return {};
    }
    why = saved == ETIMEDOUT
            ? "no answer within " + std::to_string(timeout.count()) + " ms"
            : std::strerror(saved);
  }
  freeaddrinfo(found);
  return refused(host, port, why);
}

} // namespace rmq
