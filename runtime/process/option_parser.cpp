#include "runtime/process/option_parser.hpp"

#include <iostream>

#include "caf/config_option.hpp"
#include "caf/pec.hpp"

namespace rmq {

namespace {

bool is_long(const std::string& arg) {
  return arg.size() > 2 && arg.compare(0, 2, "--") == 0;
}

bool is_short(const std::string& arg) {
  return arg.size() >= 2 && arg[0] == '-' && arg[1] != '-';
}

} // namespace

std::vector<std::string>
normalize_args(const std::vector<std::string>& args,
               const caf::config_option_set& opts,
               std::vector<std::string>* positional,
               std::vector<const caf::config_option*>* cleared) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    bool has_next = i + 1 < args.size();
    if (is_long(arg)) {
      auto eq = arg.find('=');
      if (eq == arg.size() - 1) {
        // CAF reads "--key=" as a missing value; a quoted "" is empty.
        out.push_back(arg + "\"\"");
      } else if (eq == std::string::npos) {
        auto opt = opts.cli_long_name_lookup(arg.substr(2));
        if (opt != nullptr && !opt->is_flag() && has_next) {
          out.push_back(arg + "=" + args[++i]);
        } else {
          out.push_back(arg);
        }
      } else {
        auto opt = opts.cli_long_name_lookup(arg.substr(2, eq - 2));
        auto value = arg.substr(eq + 1);
        if (opt != nullptr && opt->is_flag() && value == "true")
          out.push_back(arg.substr(0, eq));
        else if (opt != nullptr && opt->is_flag() && value == "false"
                 && cleared != nullptr)
          cleared->push_back(opt);
        else
          out.push_back(arg);
      }
    } else if (is_short(arg)) {
      out.push_back(arg);
      auto opt = opts.cli_short_name_lookup(arg[1]);
      if (arg.size() == 2 && opt != nullptr && !opt->is_flag() && has_next)
        out.push_back(args[++i]);
    } else if (positional != nullptr) {
      positional->push_back(arg);
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

void clear_flags(const std::vector<const caf::config_option*>& cleared,
                 caf::settings* values) {
  for (auto opt : cleared) {
    opt->store(caf::config_value{false});
    if (values != nullptr)
      caf::put(*values, caf::string_view{opt->long_name()}, false);
  }
}

option_parser::option_parser(std::string usage, bool allow_positional)
  : usage_(std::move(usage)), allow_positional_(allow_positional) {
  // nop
}

std::string option_parser::try_parse(const std::vector<std::string>& args) {
  values_.clear();
  positional_.clear();
  for (auto& arg : args)
    if (arg == "--help" || arg == "-h")
      return "help";
  std::vector<const caf::config_option*> cleared;
  auto normalized = normalize_args(
    args, opts_, allow_positional_ ? &positional_ : nullptr, &cleared);
  auto [code, where] = opts_.parse(values_, normalized);
  if (code == caf::pec::success) {
    clear_flags(cleared, &values_);
    return {};
  }
  std::string arg = where != normalized.end() ? *where : std::string{};
  switch (code) {
    case caf::pec::not_an_option:
      return "unknown option or argument '" + arg + "'";
    case caf::pec::missing_argument:
      return "option '" + arg + "' needs a value";
    default:
      return "bad value in '" + arg + "' (" + to_string(code) + ")";
  }
}

int option_parser::parse(const std::vector<std::string>& args) {
  auto err = try_parse(args);
  if (err.empty())
    return -1;
  if (err == "help") {
    std::cout << help_text();
    return 0;
  }
  std::cerr << usage_ << ": " << err << "\n" << help_text();
  return 2;
}

int option_parser::parse(int argc, char** argv, int first) {
  std::vector<std::string> args;
  for (int i = first; i < argc; ++i)
    args.emplace_back(argv[i]);
  return parse(args);
}

bool option_parser::given(const std::string& name) const {
  return values_.count(name) > 0;
}

std::string option_parser::help_text() const {
  // CAF heads the list "global options:"; every option here is global.
  auto text = opts_.help_text(true);
  const std::string head = "global options:";
  if (text.compare(0, head.size(), head) == 0)
    text.replace(0, head.size(), "options:");
  return "usage: " + usage_ + "\n" + text;
}

} // namespace rmq
