#include "tests/support/child_process.hpp"

namespace rmq::test {

std::string bin_dir() {
  return RMQ_BIN_DIR;
}

} // namespace rmq::test
