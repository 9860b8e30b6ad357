#include "tests/support/child_process.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rmq::test {

std::string bin_dir() {
  return RMQ_BIN_DIR;
}

child_process::child_process(std::vector<std::string> argv,
                             bool quiet_stderr) {
  int fds[2];
  if (pipe(fds) != 0)
    return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    if (quiet_stderr) {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, STDERR_FILENO);
    }
    std::vector<char*> args;
    for (auto& arg : argv)
      args.push_back(arg.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  out_fd_ = fds[0];
}

child_process::~child_process() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    wait(std::chrono::seconds{5});
  }
  if (out_fd_ >= 0)
    close(out_fd_);
}

bool child_process::read_line(std::string& line,
                              std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto nl = buf_.find('\n');
    if (nl != std::string::npos) {
      line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return true;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || out_fd_ < 0)
      return false;
    pollfd pfd{out_fd_, POLLIN, 0};
    auto rc = poll(&pfd, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      return false;
    char tmp[4096];
    auto n = ::read(out_fd_, tmp, sizeof(tmp));
    if (n <= 0)
      return false;
    buf_.append(tmp, static_cast<size_t>(n));
  }
}

bool child_process::wait_for(const std::string& prefix, std::string& rest,
                             std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !read_line(line, left))
      return false;
    if (line.compare(0, prefix.size(), prefix) == 0) {
      rest = line.substr(prefix.size());
      return true;
    }
  }
}

void child_process::signal(int sig) {
  if (running())
    ::kill(pid_, sig);
}

int child_process::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reaped_) {
    auto rc = waitpid(pid_, &status_, WNOHANG);
    if (rc == pid_) {
      reaped_ = true;
      break;
    }
    if (rc < 0)
      return -1;
    if (std::chrono::steady_clock::now() >= deadline)
      return -1;
    usleep(2000);
  }
  if (WIFEXITED(status_))
    return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_))
    return 128 + WTERMSIG(status_);
  return -1;
}

int run_command(std::vector<std::string> argv, std::string& out,
                std::chrono::milliseconds timeout) {
  child_process proc{std::move(argv)};
  out.clear();
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !proc.read_line(line, left))
      break;
    out += line;
    out += '\n';
  }
  return proc.wait(std::chrono::seconds{5});
}

} // namespace rmq::test
