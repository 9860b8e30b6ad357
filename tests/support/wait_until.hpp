// Waiting on a condition in multi-process tests: poll until it holds or a
// generous deadline passes. Tests assert the condition, never how long it
// took (a loaded machine makes every duration lie).
#pragma once

#include <chrono>
#include <thread>

namespace rmq::test {

/// Returns whether `pred()` became true within `timeout`, asking again
/// every `poll`.
template <class Predicate>
bool wait_until(Predicate pred, std::chrono::milliseconds timeout,
                std::chrono::milliseconds poll = std::chrono::milliseconds{5}) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred())
      return true;
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(poll);
  }
}

} // namespace rmq::test
