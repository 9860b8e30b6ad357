// Reads and atomically writes one JSON document per file, the way every
// broker config file is kept (config/topics.json, ...). Plain C++ without
// actors; never throws.
#pragma once

#include <functional>
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

/// What `load_config` did with a config file.
struct config_load {
  /// Where a damaged file went ("" when it was fine or missing).
  std::string corrupt_copy;
  /// Set when the file is there but could neither be used nor moved
  /// aside (unreadable, or the rename failed): saving over it would
  /// destroy what nobody read, so the caller must refuse to save.
  caf::error blocked;
};

/// The one treatment of every config file of a node (topics, groups,
/// offsets, checkpoints): `apply` takes the document (null: no file yet)
/// into the caller's state, or answers why it cannot and changes nothing.
/// A file that is empty, no JSON or of a shape `apply` refuses as
/// `corrupt_data` is moved to `path.corrupt.N` and logged at ERROR under
/// `component` with `consequence`, the caller's words for what it goes on
/// with ("group offsets restart from each group's consume-from rule"); the
/// caller is then as without a file. Any other error of `apply` (settings
/// that differ from the file's) leaves the file alone and is `blocked`.
config_load
load_config(const std::string& path, const char* component,
            const std::string& consequence,
            const std::function<caf::error(const nlohmann::json&)>& apply);

} // namespace rmq::json_file
