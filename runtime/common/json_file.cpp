#include "runtime/common/json_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

namespace rmq::json_file {

namespace {

caf::error io_failure(const std::string& what, const std::string& path,
                      int err) {
  return make_error(errc::io_error,
                    what + " " + path + ": " + std::strerror(err));
}

// Writes all of `data` to `fd`, retrying on short writes and EINTR.
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

// Makes a completed rename survive a power loss (the directory entry is
// data of the directory). Best effort: some file systems refuse it.
void sync_dir(const std::filesystem::path& dir) {
  auto fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace

caf::expected<nlohmann::json> load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (ec)
      return io_failure("cannot stat", path, ec.value());
    return nlohmann::json{};
  }
  if (!std::filesystem::is_regular_file(path, ec))
    return make_error(errc::io_error, path + " is not a regular file");
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return io_failure("cannot open", path, errno);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad())
    return io_failure("cannot read", path, errno);
  auto text = buf.str();
  if (text.empty())
    return make_error(errc::corrupt_data, path + ": file is empty");
  // No exceptions: a parse failure yields a "discarded" value.
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return make_error(errc::corrupt_data, path + ": not valid JSON");
  return doc;
}

caf::expected<std::string> render(const nlohmann::json& doc,
                                  const std::string& what) {
  try {
    return doc.dump();
  } catch (const std::exception& ex) {
    return make_error(errc::invalid_parameter,
                      std::string{"cannot encode "} + what + ": " + ex.what());
  }
}

caf::error save(const std::string& path, const nlohmann::json& doc) {
  auto text = render(doc, path);
  if (!text)
    return std::move(text.error());
  return save_text(path, *text);
}

caf::error save_text(const std::string& path, const std::string& text) {
  auto target = std::filesystem::path{path};
  auto dir = target.parent_path();
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

caf::expected<std::string> keep_aside(const std::string& path) {
  std::error_code ec;
  for (int n = 1; n <= 10'000; ++n) {
    auto name = path + ".corrupt." + std::to_string(n);
    if (std::filesystem::exists(name, ec) || ec)
      continue;
    std::filesystem::rename(path, name, ec);
    if (ec)
      return make_error(errc::io_error, "cannot move " + path + " to " + name
                                          + ": " + ec.message());
    return name;
  }
  return make_error(errc::io_error,
                    "cannot move " + path + " aside: no free .corrupt name");
}

config_load
load_config(const std::string& path, const char* component,
            const std::string& consequence,
            const std::function<caf::error(const nlohmann::json&)>& apply) {
  config_load result;
  auto doc = load(path);
  caf::error err;
  if (!doc) {
    err = std::move(doc.error());
  } else if ((err = apply(*doc)) == errc::corrupt_data) {
    err = make_error(errc::corrupt_data, path + ": " + error_detail(err));
  }
  if (!err)
    return result;
  if (err == errc::corrupt_data) {
    auto aside = keep_aside(path);
    if (aside) {
      result.corrupt_copy = *aside;
      RMQ_ERROR(component, describe(err) << "; kept aside as " << *aside << "; "
                                         << consequence);
      // Null stands for "no file": the caller starts from nothing.
      if (auto again = apply(nlohmann::json{}))
        RMQ_ERROR(component, "starting without "
                               << path << " failed too: " << describe(again));
      return result;
    }
    err = std::move(aside.error());
  }
  RMQ_ERROR(component, describe(err)
                         << "; serving what is in memory and saving nothing "
                            "to "
                         << path << " until it can be read or moved aside; "
                         << consequence);
  result.blocked = std::move(err);
  return result;
}

} // namespace rmq::json_file
