// Reads and writes one JSON document as a file, atomically: the config
// files of broker tables (config/subscriptionGroup.json, ...). Plain C++
// without actors, so it is testable on its own.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"
#include "caf/expected.hpp"

namespace rmq::json_file {

/// Returns the document stored at `path`, or a null document if there is
/// no file. Errors: `io_error` if it exists but cannot be read,
/// `corrupt_data` if it is empty or not valid JSON. Never throws.
caf::expected<nlohmann::json> load(const std::string& path);

/// Writes `doc` to `path` atomically and durably: write `path + ".tmp"`,
/// fsync it, rename it over `path`, fsync the directory. Creates missing
/// parent directories. Returns an `io_error` (with the failing step and
/// strerror), `invalid_parameter` if `doc` holds invalid UTF-8, or none.
/// Never throws.
caf::error save(const std::string& path, const nlohmann::json& doc);

} // namespace rmq::json_file
