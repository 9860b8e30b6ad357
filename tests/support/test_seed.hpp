// The seed of a test that uses random numbers: printed, so that a failure
// can be replayed with RMQ_TEST_SEED=<seed>.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include <doctest/doctest.h>

namespace rmq::test {

/// Returns RMQ_TEST_SEED if set, else a fresh random seed; prints it.
inline uint32_t test_seed() {
  uint32_t seed;
  if (auto env = std::getenv("RMQ_TEST_SEED"))
    seed = static_cast<uint32_t>(std::stoul(env));
  else
    seed = std::random_device{}();
  MESSAGE("seed " << seed << " (replay: RMQ_TEST_SEED=" << seed << ")");
  return seed;
}

} // namespace rmq::test
