// The one command-line parser of the rmq executables. Options are CAF config
// options, so rmq-node's flags, its config file keys and every other tool's
// flags are spelled and typed the same way. Accepted forms: "--name value",
// "--name=value", "-n value", "-nvalue"; a bool option is a flag: "--name"
// or "--name=true" sets it, "--name=false" clears it (CAF 0.17 itself has
// no way to clear a flag from the command line).
#pragma once

#include <string>
#include <vector>

#include "caf/config_option_set.hpp"
#include "caf/settings.hpp"

namespace rmq {

/// Rewrites `args` into the only form CAF 0.17's parser reads for long
/// options ("--name=value"), looking each name up in `opts` to tell flags
/// from options that take the next argument as their value. An empty value
/// ("--name=") becomes a quoted empty string. Arguments that are neither
/// options nor their values go to `positional` when it is given and stay in
/// place otherwise (CAF then reports them). "--flag=true" becomes
/// "--flag"; "--flag=false" is taken out and its option added to
/// `cleared` (when given), for `clear_flags` after CAF's parse.
std::vector<std::string>
normalize_args(const std::vector<std::string>& args,
               const caf::config_option_set& opts,
               std::vector<std::string>* positional = nullptr,
               std::vector<const caf::config_option*>* cleared = nullptr);

/// Sets every option in `cleared` to false (into its bound variable and,
/// when given, into `values`).
void clear_flags(const std::vector<const caf::config_option*>& cleared,
                 caf::settings* values = nullptr);

/// A set of typed options bound to variables, for the tools that are not
/// CAF actor_system_configs (rmq-admin's commands, rmq-bench's benches).
class option_parser {
public:
  /// `usage` is the first line of the help text, e.g. "rmq-bench store".
  explicit option_parser(std::string usage, bool allow_positional = false);

  /// Binds `var` to the option `names` ("long" or "long,s" for a short
  /// alias). Its current value is the default.
  template <class T>
  option_parser&
  add(const std::string& names, T& var, const std::string& help) {
    opts_.add(var, "global", names, help);
    return *this;
  }

  /// Parses `args` (without the program name). Returns -1 to go on, 0 after
  /// printing the help for --help/-h, 2 after printing a usage error.
  int parse(const std::vector<std::string>& args);

  /// Same for main's arguments from `argv[first]` on.
  int parse(int argc, char** argv, int first = 1);

  /// Arguments that were not options (only with `allow_positional`).
  const std::vector<std::string>& positional() const {
    return positional_;
  }

  /// Whether the last parse set the option with long name `name`.
  bool given(const std::string& name) const;

  /// The usage line followed by one line per option.
  std::string help_text() const;

  /// Parses without printing: returns the error text, or an empty string.
  std::string try_parse(const std::vector<std::string>& args);

private:
  std::string usage_;
  bool allow_positional_;
  caf::config_option_set opts_;
  caf::settings values_;
  std::vector<std::string> positional_;
};

} // namespace rmq
