#include "runtime/common/config_file.hpp"

#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"

namespace rmq {

config_file::config_file(std::string path, const char* component)
  : path_(std::move(path)), component_(component) {
  // nop
}

void config_file::load(
  const std::string& consequence,
  const std::function<caf::error(const nlohmann::json&)>& apply) {
  if (path_.empty())
    return;
  auto res = json_file::load_config(path_, component_, consequence, apply);
  corrupt_copy_ = std::move(res.corrupt_copy);
  blocked_ = std::move(res.blocked);
}

caf::error config_file::save(const nlohmann::json& doc) {
  if (path_.empty())
    return {};
  if (blocked_) {
    ++save_errors_;
    return blocked_;
  }
  if (auto err = json_file::save(path_, doc)) {
    ++save_errors_;
    auto text = describe(err);
    if (text != last_error_)
      RMQ_ERROR(component_, "saving " << path_ << " failed: " << text
                                      << "; serving the change from memory "
                                         "and saving again every second");
    last_error_ = std::move(text);
    return err;
  }
  if (!last_error_.empty())
    RMQ_WARN(component_, "saved " << path_ << " again after "
                                  << "failures (last: " << last_error_ << ")");
  last_error_.clear();
  ++saves_;
  return {};
}

void config_file::add_dump_fields(nlohmann::json& out) const {
  out["path"] = path_;
  out["saves"] = saves_;
  out["save_errors"] = save_errors_;
  out["save_failing"] = last_error_;
  out["corrupt_copy"] = corrupt_copy_;
  out["save_blocked"] = blocked_ ? describe(blocked_) : std::string{};
}

} // namespace rmq
