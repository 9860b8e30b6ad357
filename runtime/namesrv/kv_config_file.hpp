// Reads and writes the NameServer's KV config file (RocketMQ kvConfig.json,
// KVConfigManager#load/#persist): {"configTable":{"ns":{"key":"value"}}}.
// Plain C++ without actors, so the file format is testable on its own.
#pragma once

#include <map>
#include <string>

#include "caf/error.hpp"
#include "caf/expected.hpp"

namespace rmq {

/// Namespace -> key -> value (RocketMQ KVConfigManager#configTable).
using kv_config_map = std::map<std::string, std::map<std::string, std::string>>;

namespace kv_config_file {

/// Returns the table stored at `path`. A missing file is an empty table.
/// Errors: `io_error` if the file exists but cannot be read, `corrupt_data`
/// if it is not valid JSON of the expected shape (an empty file included:
/// `save` never writes one). Never throws.
caf::expected<kv_config_map> load(const std::string& path);

/// Writes `table` to `path` atomically and durably: write `path + ".tmp"`,
/// fsync it, rename it over `path`, fsync the directory. Creates missing
/// parent directories. Returns an `io_error` (with the failing step and
/// strerror) or none. Never throws.
caf::error save(const std::string& path, const kv_config_map& table);

/// Returns the file content `save` writes for `table`, without a newline.
/// Throws nlohmann::json::type_error if a string is not valid UTF-8.
std::string to_text(const kv_config_map& table);

/// Parses file content; the counterpart of `to_text`. Never throws.
caf::expected<kv_config_map> from_text(const std::string& text);

} // namespace kv_config_file

} // namespace rmq
