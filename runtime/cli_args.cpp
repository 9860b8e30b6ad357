#include "runtime/cli_args.hpp"

#include <algorithm>
#include <cstdlib>

namespace rmq {

std::vector<std::string> normalize_args(int argc, char** argv,
                                        const std::vector<std::string>& flags) {
  std::vector<std::string> result;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool is_long = arg.size() > 2 && arg.compare(0, 2, "--") == 0
                   && arg.find('=') == std::string::npos;
    bool is_flag = std::find(flags.begin(), flags.end(), arg.substr(2))
                   != flags.end();
    if (arg.size() > 3 && arg.back() == '=') {
      // CAF reads "--key=" as a missing value; a quoted "" is empty.
      result.push_back(arg + "\"\"");
    } else if (is_long && !is_flag && i + 1 < argc
               && argv[i + 1][0] != '-') {
      result.push_back(arg + "=" + argv[i + 1]);
      ++i;
    } else {
      result.push_back(std::move(arg));
    }
  }
  return result;
}

std::string home_dir() {
  auto home = std::getenv("HOME");
  return home && *home ? home : ".";
}

} // namespace rmq
