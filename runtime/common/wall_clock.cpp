#include "runtime/common/wall_clock.hpp"

#include <chrono>

namespace rmq {

int64_t system_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

} // namespace rmq
