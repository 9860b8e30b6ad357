#include "runtime/json_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "messages/errors.hpp"

namespace rmq::json_file {

namespace {

caf::error io_failure(const std::string& what, const std::string& path,
                      int err) {
  return make_error(errc::io_error,
                    what + " " + path + ": " + std::strerror(err));
}

bool write_all(int fd, const std::string& data) {
  auto pos = data.data();
  auto left = data.size();
  while (left > 0) {
    auto n = ::write(fd, pos, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    pos += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// Best effort: some file systems refuse to fsync a directory.
void sync_dir(const std::filesystem::path& dir) {
  auto fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

caf::expected<std::string> read(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return io_failure("cannot open", path, errno);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad())
    return io_failure("cannot read", path, errno);
  return buf.str();
}

caf::error write_atomically(const std::string& path, const std::string& text) {
  auto dir = std::filesystem::path{path}.parent_path();
  std::error_code ec;
  if (!dir.empty()) {
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return io_failure("cannot create directory", dir.string(), ec.value());
  }
  auto tmp = path + ".tmp";
  auto fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_failure("cannot create", tmp, errno);
  if (!write_all(fd, text) || ::fsync(fd) != 0) {
    auto err = io_failure("cannot write", tmp, errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::close(fd) != 0) {
    auto err = io_failure("cannot close", tmp, errno);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = io_failure("cannot rename " + tmp + " to", path, errno);
    ::unlink(tmp.c_str());
    return err;
  }
  sync_dir(dir);
  return {};
}

} // namespace rmq::json_file
