#include "tests/support/child_process.hpp"

namespace rmq::test {

std::string bin_dir() {
  return RMQ_BIN_DIR;
}

std::string source_dir() {
  return RMQ_SOURCE_DIR;
}

} // namespace rmq::test
