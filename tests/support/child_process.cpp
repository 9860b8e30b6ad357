#include "tests/support/child_process.hpp"

#include <sstream>

namespace rmq::test {

std::string bin_dir() {
  return RMQ_BIN_DIR;
}

std::vector<std::string> output_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  std::string line;
  while (std::getline(in, line))
    if (!line.empty())
      out.push_back(line);
  return out;
}

std::string source_dir() {
  return RMQ_SOURCE_DIR;
}

std::string cmake_command() {
  return RMQ_CMAKE_COMMAND;
}

size_t count_of(const std::string& out, const std::string& what) {
  size_t n = 0;
  for (auto at = out.find(what); at != std::string::npos;
       at = out.find(what, at + 1))
    ++n;
  return n;
}

} // namespace rmq::test
