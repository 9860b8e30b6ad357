#include "runtime/common/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace rmq::log {

namespace {

level initial_level() {
  level result = level::info;
  if (auto env = std::getenv("RMQ_LOG_LEVEL"))
    parse_level(env, result);
  return result;
}

std::atomic<int>& current() {
  static std::atomic<int> value{static_cast<int>(initial_level())};
  return value;
}

const char* label(level x) {
  switch (x) {
    case level::debug:
      return "DEBUG";
    case level::info:
      return "INFO ";
    case level::warn:
      return "WARN ";
    case level::error:
      return "ERROR";
    default:
      return "     ";
  }
}

} // namespace

void set_level(level x) {
  current() = static_cast<int>(x);
}

bool parse_level(const std::string& str, level& out) {
  static const char* names[] = {"debug", "info", "warn", "error", "off"};
  for (int i = 0; i < 5; ++i)
    if (str == names[i]) {
      out = static_cast<level>(i);
      return true;
    }
  return false;
}

bool enabled(level x) {
  return static_cast<int>(x) >= current().load(std::memory_order_relaxed);
}

void write(level x, const char* component, const std::string& text) {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  static std::mutex mtx;
  std::lock_guard<std::mutex> guard{mtx};
  std::fprintf(stderr, "%s.%03dZ %s [%s] %s\n", stamp, static_cast<int>(ms),
               label(x), component, text.c_str());
}

} // namespace rmq::log
