// A small thread-safe logger: Debian's CAF has its logging compiled out.
// Lines go to stderr as "2026-11-29T08:00:00.123Z INFO  [component] text".
#pragma once

#include <sstream>
#include <string>

namespace rmq::log {

enum class level { debug = 0, info, warn, error, off };

/// Sets the lowest level that is printed (default: info; RMQ_LOG_LEVEL=debug
/// in the environment overrides it at start).
void set_level(level x);

/// Parses "debug", "info", "warn", "error" or "off"; false if unknown.
bool parse_level(const std::string& str, level& out);

bool enabled(level x);

void write(level x, const char* component, const std::string& text);

} // namespace rmq::log

#define RMQ_LOG(lvl, component, expr)                                          \
  do {                                                                         \
    if (::rmq::log::enabled(lvl)) {                                            \
      std::ostringstream rmq_log_os_;                                          \
      rmq_log_os_ << expr;                                                     \
      ::rmq::log::write(lvl, component, rmq_log_os_.str());                    \
    }                                                                          \
  } while (false)

#define RMQ_DEBUG(c, e) RMQ_LOG(::rmq::log::level::debug, c, e)
#define RMQ_INFO(c, e) RMQ_LOG(::rmq::log::level::info, c, e)
#define RMQ_WARN(c, e) RMQ_LOG(::rmq::log::level::warn, c, e)
#define RMQ_ERROR(c, e) RMQ_LOG(::rmq::log::level::error, c, e)
