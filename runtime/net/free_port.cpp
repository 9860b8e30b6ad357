#include "runtime/net/free_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "messages/common/errors.hpp"

namespace rmq {

caf::expected<uint16_t> pick_free_port(const std::string& host) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    return make_error(errc::invalid_parameter, "not an IPv4 address: " + host);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return make_error(errc::io_error, std::strerror(errno));
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0
      || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    auto err = make_error(errc::io_error, "no free port on " + host + ": "
                                            + std::strerror(errno));
    close(fd);
    return err;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

caf::error check_port_free(const std::string& host, uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    return make_error(errc::invalid_parameter, "not an IPv4 address: " + host);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return make_error(errc::io_error, std::strerror(errno));
  // As CAF's listen does: a port in TIME_WAIT after a restart is free.
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  caf::error err;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    err = make_error(errc::io_error, "cannot listen on " + host + ":"
                                       + std::to_string(port) + ": "
                                       + std::strerror(errno));
  close(fd);
  return err;
}

} // namespace rmq
