#include "runtime/process/child_process.hpp"

#include <cerrno>
#include <climits>
#include <csignal>

#include <fcntl.h>

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rmq {

namespace {

using clock_type = std::chrono::steady_clock;

int ms_left(clock_type::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
    deadline - clock_type::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

} // namespace

std::string exe_dir() {
  char buf[PATH_MAX];
  auto n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return ".";
  std::string path{buf, static_cast<size_t>(n)};
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

child_process::child_process(std::vector<std::string> argv, bool quiet_stderr) {
  int fds[2];
  if (pipe(fds) != 0)
    return;
  auto parent = getpid();
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) // the parent died before prctl
      _exit(127);
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
  if (pid_ < 0)
    close(fds[0]);
  else
    out_fd_ = fds[0];
}

child_process::~child_process() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    wait(std::chrono::seconds{5});
  }
  if (out_fd_ >= 0)
    close(out_fd_);
}

bool child_process::read_line(std::string& line,
                              std::chrono::milliseconds timeout) {
  auto deadline = clock_type::now() + timeout;
  for (;;) {
    if (auto nl = buf_.find('\n'); nl != std::string::npos) {
      line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return true;
    }
    if (out_fd_ < 0)
      return false;
    pollfd pfd{out_fd_, POLLIN, 0};
    auto rc = poll(&pfd, 1, ms_left(deadline));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      return false;
    char tmp[4096];
    auto n = ::read(out_fd_, tmp, sizeof(tmp));
    if (n <= 0) {
      close(out_fd_);
      out_fd_ = -1;
      if (buf_.empty())
        return false;
      buf_ += '\n'; // last line without a newline
      continue;
    }
    buf_.append(tmp, static_cast<size_t>(n));
  }
}

bool child_process::wait_for(const std::string& prefix, std::string& rest,
                             std::chrono::milliseconds timeout) {
  auto deadline = clock_type::now() + timeout;
  std::string line;
  while (read_line(line, std::chrono::milliseconds{ms_left(deadline)}))
    if (line.compare(0, prefix.size(), prefix) == 0) {
      rest = line.substr(prefix.size());
      return true;
    }
  return false;
}

void child_process::signal(int sig) {
  if (pid_ > 0 && !reaped_)
    ::kill(pid_, sig);
}

int child_process::wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0)
    return -1;
  auto deadline = clock_type::now() + timeout;
  while (!reaped_) {
    auto rc = waitpid(pid_, &status_, WNOHANG);
    if (rc == pid_)
      reaped_ = true;
    else if (rc < 0 || clock_type::now() >= deadline)
      return -1;
    else
      usleep(1000);
  }
  if (WIFEXITED(status_))
    return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_))
    return 128 + WTERMSIG(status_);
  return -1;
}

int run_command(std::vector<std::string> argv, std::string& out,
                std::chrono::milliseconds timeout) {
  auto deadline = clock_type::now() + timeout;
  child_process proc{std::move(argv)};
  out.clear();
  std::string line;
  while (proc.read_line(line, std::chrono::milliseconds{ms_left(deadline)}))
    out += line + '\n';
  return proc.wait(std::chrono::milliseconds{ms_left(deadline) + 1000});
}

} // namespace rmq
