#include "runtime/kv_config_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "messages/errors.hpp"

namespace rmq::kv_config_file {

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

std::string to_text(const kv_config_map& table) {
  nlohmann::json config_table = nlohmann::json::object();
  for (auto& [ns, kvs] : table)
    config_table[ns] = kvs;
  return nlohmann::json{{"configTable", std::move(config_table)}}.dump();
}

caf::expected<kv_config_map> from_text(const std::string& text) {
  auto corrupt = [](std::string why) {
    return make_error(errc::corrupt_data, std::move(why));
  };
  // No exceptions: a parse failure yields a "discarded" value.
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return corrupt("not valid JSON");
  if (!doc.is_object())
    return corrupt("top level is not an object");
  kv_config_map result;
  auto i = doc.find("configTable");
  if (i == doc.end() || i->is_null())
    return result; // RocketMQ writes no table when it never had one
  if (!i->is_object())
    return corrupt("configTable is not an object");
  for (auto& [ns, kvs] : i->items()) {
    if (!kvs.is_object())
      return corrupt("namespace '" + ns + "' is not an object");
    auto& dst = result[ns];
    for (auto& [key, value] : kvs.items()) {
      if (!value.is_string())
        return corrupt("value of '" + ns + "'/'" + key + "' is no string");
      dst.emplace(key, value.get<std::string>());
    }
  }
  return result;
}

caf::expected<kv_config_map> load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (ec)
      return io_failure("cannot stat", path, ec.value());
    return kv_config_map{};
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
  auto result = from_text(text);
  if (!result)
    return make_error(errc::corrupt_data,
                      path + ": " + error_detail(result.error()));
  return result;
}

caf::error save(const std::string& path, const kv_config_map& table) {
  // RocketMQ (MixAll#string2File) writes a .tmp file, copies the old file
  // to .bak and then rewrites the target *in place*: a crash mid-write
  // leaves a truncated kvConfig.json. rename(2) replaces the file
  // atomically, so a reader sees either the old or the new table.
  std::string text;
  try {
    text = to_text(table);
  } catch (const std::exception& ex) {
    return make_error(errc::invalid_parameter,
                      std::string{"cannot encode table: "} + ex.what());
  }
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

} // namespace rmq::kv_config_file
