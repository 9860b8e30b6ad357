#include "tests/system/timed_sends.hpp"

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq::test {

std::map<std::string, int64_t>
send_timed(producer& p, const std::string& topic, int count,
           int64_t min_delay_ms, int64_t max_delay_ms, std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> delay{min_delay_ms, max_delay_ms};
  std::map<std::string, int64_t> not_before;
  for (int i = 0; i < count; ++i) {
    client_message msg;
    msg.topic = topic;
    msg.body = "timed-" + std::to_string(i);
    msg.delay_ms = delay(rng);
    auto sent_at = system_clock_ms();
    auto res = p.send(msg);
    REQUIRE_MESSAGE(res, describe(res.error()));
    not_before[msg.body] = sent_at + msg.delay_ms;
  }
  return not_before;
}

} // namespace rmq::test
