#include <iostream>

#include "apps/rmq-bench/benches.hpp"

namespace rmq::bench {

int namesrv(int, char**) {
  std::cerr << "rmq-bench namesrv: not implemented yet\n";
  return 1;
}

} // namespace rmq::bench
