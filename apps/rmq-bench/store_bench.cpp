#include <iostream>

#include "apps/rmq-bench/benches.hpp"

namespace rmq::bench {

int store(int, char**) {
  std::cerr << "rmq-bench store: not implemented yet\n";
  return 1;
}

} // namespace rmq::bench
