// Reads and atomically writes one JSON document per file, the way every
// broker config file is kept (config/topics.json, ...). Plain C++ without
// actors; never throws.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"
#include "caf/expected.hpp"

namespace rmq::json_file {

/// Returns the document stored at `path`, or a null document if there is
/// no file. Errors: `io_error` if the file exists but cannot be read,
/// `corrupt_data` if it is empty or not valid JSON (`save` never writes
/// either).
caf::expected<nlohmann::json> load(const std::string& path);

/// Writes `doc` to `path` atomically and durably: write `path + ".tmp"`,
/// fsync it, rename it over `path`, fsync the directory. Creates missing
/// parent directories. Returns an `io_error` (with the failing step and
/// strerror), `invalid_parameter` if `doc` has a string that is not UTF-8,
/// or none.
caf::error save(const std::string& path, const nlohmann::json& doc);

/// `doc` as the text `save` writes; `invalid_parameter` (naming `what`) if
/// a string in it is not UTF-8. Never throws.
caf::expected<std::string> render(const nlohmann::json& doc,
                                  const std::string& what);

/// `save` of a document already rendered as `text` (a table that renders
/// on its own thread and writes on another's).
caf::error save_text(const std::string& path, const std::string& text);

/// Moves a file that could not be loaded to `path + ".corrupt.<n>"`, the
/// first such name not taken, so every corrupt copy stays. Returns the new
/// name or an `io_error`.
caf::expected<std::string> keep_aside(const std::string& path);

} // namespace rmq::json_file
