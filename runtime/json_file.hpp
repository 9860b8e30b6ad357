// Whole-file reads and atomic, durable writes of small config files
// (config/*.json of the broker).
#pragma once

#include <string>

#include "caf/error.hpp"
#include "caf/expected.hpp"

namespace rmq::json_file {

/// Returns whether `path` exists.
bool exists(const std::string& path);

/// Returns the content of `path`, or io_error. Never throws.
caf::expected<std::string> read(const std::string& path);

/// Writes `text` to `path` atomically and durably: write `path + ".tmp"`,
/// fsync it, rename it over `path`, fsync the directory. Creates missing
/// directories. Returns io_error on failure (the old file stays). Never
/// throws.
caf::error write_atomically(const std::string& path, const std::string& text);

} // namespace rmq::json_file
