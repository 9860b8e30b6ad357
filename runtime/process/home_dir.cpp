#include "runtime/process/home_dir.hpp"

#include <cstdlib>

namespace rmq {

std::string home_dir() {
  auto home = std::getenv("HOME");
  return home && *home ? home : ".";
}

} // namespace rmq
