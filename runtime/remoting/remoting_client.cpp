#include "runtime/remoting/remoting_client.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rmq::remoting {

remoting_client::remoting_client(remoting_client&& other) noexcept {
  *this = std::move(other);
}

remoting_client& remoting_client::operator=(remoting_client&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    tls_ = std::move(other.tls_);
    next_opaque_ = other.next_opaque_;
    reader_ = std::move(other.reader_);
    kept_ = std::move(other.kept_);
    peer_closed_ = other.peer_closed_;
    error_ = std::move(other.error_);
  }
  return *this;
}

remoting_client::~remoting_client() {
  close();
}

void remoting_client::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  tls_.reset();
}

bool remoting_client::connect(const std::string& host, uint16_t port,
                              std::shared_ptr<tls_context> tls) {
  close();
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    error_ = "not an IPv4 address: " + host;
    return false;
  }
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    error_ = std::string{"socket: "} + std::strerror(errno);
    return false;
  }
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    error_ = "connect to " + host + ":" + std::to_string(port) + ": "
             + std::strerror(errno);
    close();
    return false;
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  peer_closed_ = false;
  if (!tls)
    return true;
  // The handshake before the first frame: a refused certificate shows
  // here, not at the first call.
  tls_ = std::make_unique<tls_stream>(std::move(tls));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  std::string hello;
  tls_->drain(hello);
  if (!write_socket(hello))
    return false;
  while (!tls_->established()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !read_socket(left)) {
      if (error_.empty() || left.count() <= 0)
        error_ = "TLS handshake with " + host + ":" + std::to_string(port)
                 + ": " + (tls_->error().empty() ? "timeout" : tls_->error());
      close();
      return false;
    }
  }
  return true;
}

bool remoting_client::send(const remoting_command& cmd) {
  return send_raw(encode_frame(cmd));
}

bool remoting_client::send_raw(std::string_view bytes) {
  if (!tls_)
    return write_socket(bytes);
  std::string cipher;
  if (!tls_->write(bytes)) {
    error_ = tls_->error();
    return false;
  }
  tls_->drain(cipher);
  return write_socket(cipher);
}

bool remoting_client::read_socket(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  auto ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready <= 0)
    return true; // nothing yet (or EINTR): the caller's clock decides
  char buf[64 * 1024];
  auto n = ::recv(fd_, buf, sizeof(buf), 0);
  if (n < 0 && errno == EINTR)
    return true;
  if (n <= 0) {
    peer_closed_ = true;
    error_ = "connection closed by the peer";
    return false;
  }
  std::string_view bytes{buf, static_cast<size_t>(n)};
  if (!tls_) {
    reader_.feed(bytes);
    return true;
  }
  std::string plain;
  bool ok = tls_->feed(bytes, plain);
  std::string cipher;
  tls_->drain(cipher);
  write_socket(cipher);
  if (!ok) {
    error_ = tls_->error();
    return false;
  }
  reader_.feed(plain);
  return true;
}

bool remoting_client::write_socket(std::string_view bytes) {
  while (!bytes.empty()) {
    auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error_ = std::string{"send: "} + std::strerror(errno);
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::optional<remoting_command>
remoting_client::receive(std::chrono::milliseconds timeout) {
  if (!kept_.empty()) {
    auto out = std::move(kept_.front());
    kept_.pop_front();
    return out;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto cmd = reader_.next())
      return cmd;
    if (reader_.failed()) {
      error_ = reader_.error();
      return std::nullopt;
    }
    if (fd_ < 0 || peer_closed_)
      return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      error_ = "timeout";
      return std::nullopt;
    }
    if (!read_socket(left))
      return std::nullopt;
  }
}

std::optional<remoting_command>
remoting_client::call(remoting_command req, std::chrono::milliseconds timeout) {
  req.opaque = next_opaque_++;
  req.flag &= ~command_flag::response;
  if (!send(req))
    return std::nullopt;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::deque<remoting_command> others;
  std::optional<remoting_command> out;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    // Only what arrives now: the kept commands were seen before.
    auto saved = std::move(kept_);
    kept_.clear();
    auto cmd = receive(std::max(left, std::chrono::milliseconds{0}));
    kept_ = std::move(saved);
    if (!cmd)
      break;
    if (cmd->is_response() && cmd->opaque == req.opaque) {
      out = std::move(cmd);
      break;
    }
    others.push_back(std::move(*cmd));
  }
  for (auto& x : others)
    kept_.push_back(std::move(x));
  return out;
}

} // namespace rmq::remoting
