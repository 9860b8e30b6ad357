// One config file of a node's table (topics, subscription groups): its
// load through json_file::load_config and its saves, with the one policy
// every table follows and the fields its dump and brokerStatus show.
// - A damaged file is kept aside and the table starts without it.
// - A file that can neither be read nor moved aside blocks changes: a save
//   would overwrite what nobody read.
// - A save that fails (disk full) keeps the change in memory, where it is
//   served, and marks the file dirty: the owner retries (`retry_due`) until
//   a save lands. Rolling back instead made a new group consume nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"

namespace rmq {

/// How often an owner saves a dirty file again.
constexpr auto config_save_retry = std::chrono::seconds{1};

class config_file {
public:
  config_file() = default;
  config_file(std::string path, const char* component);

  /// json_file::load_config of the file (no path: nothing to load).
  void load(const std::string& consequence,
            const std::function<caf::error(const nlohmann::json&)>& apply);

  /// Why changes are refused, if they are (see above).
  const caf::error& blocked() const {
    return blocked_;
  }

  /// Writes `doc` (no path: nothing). A failure is logged at ERROR when it
  /// is new and leaves the file dirty; the first save after failures is
  /// logged at WARN. Answers the failure for the caller's own log.
  caf::error save(const nlohmann::json& doc);

  /// The last save failed: the owner should save again later.
  bool dirty() const {
    return !last_error_.empty();
  }

  const std::string& path() const {
    return path_;
  }

  /// path, saves, save_errors, save_failing (the failure while dirty),
  /// corrupt_copy and save_blocked.
  void add_dump_fields(nlohmann::json& out) const;

private:
  std::string path_;
  const char* component_ = "config";
  std::string corrupt_copy_;
  caf::error blocked_;
  std::string last_error_;
  int64_t saves_ = 0;
  int64_t save_errors_ = 0;
};

} // namespace rmq
