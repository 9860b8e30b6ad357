// Timed messages for the timer crash tests: sent through a real producer,
// each remembered with the earliest wall time it may be stored.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "actors/client/producer/producer.hpp"

namespace rmq::test {

/// Sends `count` messages "timed-<i>" to `topic`, each with a delay drawn
/// from [`min_delay_ms`, `max_delay_ms`] by `rng` (REQUIREs every send);
/// answers body -> the earliest store time (wall ms) it may have.
std::map<std::string, int64_t>
send_timed(producer& p, const std::string& topic, int count,
           int64_t min_delay_ms, int64_t max_delay_ms, std::mt19937& rng);

} // namespace rmq::test
