// Command-line helpers shared by the rmq executables.
#pragma once

#include <string>
#include <vector>

namespace rmq {

/// Turns "--key value" into "--key=value" (CAF 0.17 only parses the latter)
/// unless the next argument starts with '-'. `flags` lists options that take
/// no value.
std::vector<std::string> normalize_args(int argc, char** argv,
                                        const std::vector<std::string>& flags);

/// Returns $HOME (or "." if unset).
std::string home_dir();

} // namespace rmq
