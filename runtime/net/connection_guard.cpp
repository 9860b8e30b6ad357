#include "runtime/net/connection_guard.hpp"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <openssl/ssl.h>

#include "runtime/common/log.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// CAF 0.17's BASP header: 32 bytes, the payload length big-endian at 4
// (caf/io/basp/header.hpp: operation, two pads, flags, payload_len, ...).
constexpr size_t basp_header = 32;
constexpr size_t basp_length_at = 4;

struct conn {
  std::string peer;
  clock_type::time_point since;
  bool framed = false; // a whole first frame arrived
  // Accepted on a listener of another protocol: counted, not parsed.
  bool foreign = false;
  unsigned char header[basp_header];
  size_t header_got = 0;
  uint64_t payload_left = 0;
};

struct guard {
  std::atomic<bool> on{false};
  std::mutex mtx;
  std::condition_variable cv;
  rmq::connection_guard::settings cfg;
  std::unordered_map<int, conn> conns;
  // Listening sockets whose connections speak their own protocol.
  std::unordered_set<int> foreign_listeners;
  int reserve_fd = -1;
  int64_t refused = 0;
  int64_t idle_closed = 0;
  int64_t oversize_closed = 0;
  clock_type::time_point last_refusal_log{};
  bool watching = false;
};

guard& g() {
  static guard* x = new guard; // never freed: the I/O thread uses it to exit
  return *x;
}

// Looked up on first use: a static initializer may close a file before
// this file's globals exist.
int real_accept(int fd, sockaddr* addr, socklen_t* len) {
  static auto f = real<int (*)(int, sockaddr*, socklen_t*)>("accept");
  return f(fd, addr, len);
}

int real_close(int fd) {
  static auto f = real<int (*)(int)>("close");
  return f(fd);
}

ssize_t real_recv(int fd, void* buf, size_t n, int flags) {
  static auto f = real<ssize_t (*)(int, void*, size_t, int)>("recv");
  return f(fd, buf, n, flags);
}

std::string peer_of(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (sa == nullptr)
    return "?";
  if (sa->sa_family == AF_INET) {
    auto in = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf));
    return std::string{buf} + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    auto in = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &in->sin6_addr, buf, sizeof(buf));
    return std::string{"["} + buf + "]:" + std::to_string(ntohs(in->sin6_port));
  }
  return "?";
}

// Refusals come in floods: one line a second says how many so far.
void log_refusal(guard& x, const char* why) {
  auto now = clock_type::now();
  if (now - x.last_refusal_log < std::chrono::seconds{1})
    return;
  x.last_refusal_log = now;
  RMQ_WARN("network", "refusing new connections: "
                        << why << " (" << x.conns.size() << " open, "
                        << x.refused << " refused so far); serving the open "
                        << "ones");
}

void watch_loop() {
  auto& x = g();
  std::unique_lock<std::mutex> lock{x.mtx};
  for (;;) {
    x.cv.wait_for(lock, std::chrono::milliseconds{250});
    auto now = clock_type::now();
    size_t closed = 0;
    std::string first;
    for (auto& [fd, c] : x.conns) {
      if (c.framed || now - c.since < x.cfg.first_frame_timeout
          || c.since == clock_type::time_point{})
        continue;
      if (closed++ == 0)
        first = c.peer;
      ++x.idle_closed;
      // The I/O thread then reads its end and closes the descriptor; the
      // marker keeps this from firing twice.
      c.since = clock_type::time_point{};
      ::shutdown(fd, SHUT_RDWR);
    }
    // One line a sweep: a flood of idle peers is no flood of lines.
    if (closed == 1)
      RMQ_WARN("network", "closing the connection from "
                            << first << ": no first frame within "
                            << x.cfg.first_frame_timeout.count() << " ms");
    else if (closed > 1)
      RMQ_WARN("network", "closing " << closed << " connections (from " << first
                                     << " and others): no first "
                                     << "frame within "
                                     << x.cfg.first_frame_timeout.count()
                                     << " ms");
  }
}

// Counts `n` bytes read from `fd` into the frame state; false when a
// frame's announced length is over the limit (the connection is shut).
bool on_bytes(int fd, const void* data, size_t n) {
  auto& x = g();
  std::lock_guard<std::mutex> lock{x.mtx};
  auto i = x.conns.find(fd);
  if (i == x.conns.end())
    return true;
  auto& c = i->second;
  if (c.foreign)
    return true;
  auto p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    if (c.payload_left > 0) {
      auto take = std::min<uint64_t>(n, c.payload_left);
      c.payload_left -= take;
      p += take;
      n -= static_cast<size_t>(take);
      if (c.payload_left == 0)
        c.framed = true;
      continue;
    }
    auto take = std::min(n, basp_header - c.header_got);
    std::memcpy(c.header + c.header_got, p, take);
    c.header_got += take;
    p += take;
    n -= take;
    if (c.header_got < basp_header)
      continue;
    c.header_got = 0;
    auto h = c.header + basp_length_at;
    uint32_t len = (uint32_t{h[0]} << 24) | (uint32_t{h[1]} << 16)
                   | (uint32_t{h[2]} << 8) | uint32_t{h[3]};
    if (len > x.cfg.max_frame_bytes) {
      RMQ_WARN("network", "closing the connection from "
                            << c.peer << ": a frame of " << len
                            << " bytes, over the limit of "
                            << x.cfg.max_frame_bytes);
      ++x.oversize_closed;
      c.framed = true; // no idle close on top
      ::shutdown(fd, SHUT_RDWR);
      return false;
    }
    c.payload_left = len;
    if (len == 0)
      c.framed = true;
  }
  return true;
}

} // namespace

extern "C" {

int accept(int fd, sockaddr* addr, socklen_t* len) {
  auto& x = g();
  sockaddr_storage mine{};
  socklen_t mine_len = sizeof(mine);
  if (addr == nullptr) {
    addr = reinterpret_cast<sockaddr*>(&mine);
    len = &mine_len;
  }
  auto r = real_accept(fd, addr, len);
  if (!x.on.load(std::memory_order_relaxed))
    return r;
  std::lock_guard<std::mutex> lock{x.mtx};
  if (r < 0) {
    if (errno != EMFILE && errno != ENFILE)
      return r;
    // No descriptor for the peer: take it off the queue with the reserve
    // one, so that the listener is not woken for it again and again, and
    // refuse it. CAF's acceptor would give up on EMFILE; EAGAIN it skips.
    if (x.reserve_fd >= 0) {
      real_close(x.reserve_fd);
      x.reserve_fd = -1;
      auto c = real_accept(fd, nullptr, nullptr);
      if (c >= 0)
        real_close(c);
      x.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    ++x.refused;
    log_refusal(x, "out of file descriptors");
    errno = EAGAIN;
    return -1;
  }
  if (x.conns.size() >= x.cfg.max_connections) {
    real_close(r);
    ++x.refused;
    log_refusal(x, "at the connection limit");
    errno = EAGAIN;
    return -1;
  }
  auto& c = x.conns[r];
  c = conn{};
  c.peer = peer_of(addr);
  c.since = clock_type::now();
  if (x.foreign_listeners.count(fd) > 0)
    c.foreign = c.framed = true;
  return r;
}

int close(int fd) {
  auto& x = g();
  if (x.on.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock{x.mtx};
    x.conns.erase(fd);
    x.foreign_listeners.erase(fd);
  }
  return real_close(fd);
}

ssize_t recv(int fd, void* buf, size_t n, int flags) {
  auto r = real_recv(fd, buf, n, flags);
  if (r > 0 && g().on.load(std::memory_order_relaxed)
      && !on_bytes(fd, buf, static_cast<size_t>(r)))
    return 0; // as if the peer had closed
  return r;
}

} // extern "C"

namespace rmq::connection_guard {

// Called by openssl_fixes' SSL_read for the bytes it decrypted.
bool on_tls_bytes(int fd, const void* data, size_t n) {
  if (!g().on.load(std::memory_order_relaxed))
    return true;
  return on_bytes(fd, data, n);
}

void enable(settings cfg, size_t reserve) {
  auto& x = g();
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    auto room = lim.rlim_cur > reserve ? lim.rlim_cur - reserve : 1;
    cfg.max_connections = std::min<size_t>(cfg.max_connections, room);
  }
  std::lock_guard<std::mutex> lock{x.mtx};
  x.cfg = cfg;
  if (x.reserve_fd < 0)
    x.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!x.watching) {
    x.watching = true;
    std::thread{watch_loop}.detach();
  }
  x.on = true;
}

void not_basp(int listener_fd) {
  auto& x = g();
  std::lock_guard<std::mutex> lock{x.mtx};
  x.foreign_listeners.insert(listener_fd);
}

counters stats() {
  auto& x = g();
  std::lock_guard<std::mutex> lock{x.mtx};
  return {x.conns.size(), x.refused, x.idle_closed, x.oversize_closed};
}

bool linked() {
  auto found = dlsym(RTLD_DEFAULT, "accept");
  return found == reinterpret_cast<void*>(&accept);
}

} // namespace rmq::connection_guard
