#include "runtime/client/consume_from.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>

#include "messages/common/errors.hpp"
#include "runtime/message/retry_topic.hpp"

namespace rmq {

caf::expected<start_plan>
plan_start(consume_from_where from, const std::string& topic,
           int64_t stored_offset, int64_t consume_timestamp_ms) {
  start_plan plan;
  if (stored_offset >= 0) {
    plan.offset = stored_offset;
    return plan;
  }
  if (stored_offset != -1)
    return make_error(errc::query_not_found,
                      "failed to query the consume offset of " + topic);
  auto retry = is_retry_topic(topic);
  switch (from) {
    case consume_from_where::consume_from_first_offset:
      plan.offset = 0;
      break;
    case consume_from_where::consume_from_timestamp:
      if (retry) {
        plan.lookup = start_lookup::max_offset;
      } else {
        plan.lookup = start_lookup::search_by_time;
        plan.timestamp_ms = consume_timestamp_ms;
      }
      break;
    case consume_from_where::consume_from_last_offset:
    default:
      // A retry topic holds only this group's failed messages: all of
      // them are still owed, so it starts at 0.
      if (retry)
        plan.offset = 0;
      else
        plan.lookup = start_lookup::max_offset;
      break;
  }
  return plan;
}

caf::expected<int64_t> finish_start(const start_plan& plan, int64_t looked_up) {
  auto result = plan.lookup == start_lookup::none ? plan.offset : looked_up;
  if (result < 0)
    return make_error(errc::system_error,
                      "unexpected start offset " + std::to_string(result));
  return result;
}

int64_t default_consume_timestamp(int64_t now_ms) {
  return now_ms - int64_t{30} * 60 * 1000;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil), so that parsing needs neither timegm nor the TZ.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  auto era = (y >= 0 ? y : y - 399) / 400;
  auto yoe = static_cast<unsigned>(y - era * 400);
  auto doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  auto doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

} // namespace

caf::expected<int64_t> parse_consume_timestamp(const std::string& text) {
  auto bad = [&] {
    return make_error(errc::invalid_parameter,
                      "consume timestamp is not yyyyMMddHHmmss: " + text);
  };
  if (text.size() != 14)
    return bad();
  for (auto c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return bad();
  auto num = [&](size_t pos, size_t len) {
    return std::stoll(text.substr(pos, len));
  };
  auto y = num(0, 4);
  auto mo = num(4, 2);
  auto d = num(6, 2);
  auto h = num(8, 2);
  auto mi = num(10, 2);
  auto s = num(12, 2);
  static constexpr int month_days[] = {31, 28, 31, 30, 31, 30,
                                       31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59)
    return bad();
  auto days_in_month = month_days[mo - 1] + (mo == 2 && leap(y) ? 1 : 0);
  if (d > days_in_month)
    return bad();
  auto days = days_from_civil(y, static_cast<unsigned>(mo),
                              static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60 * 1000 + s * 1000;
}

std::string format_consume_timestamp(int64_t ms) {
  auto secs = static_cast<std::time_t>(ms / 1000 - (ms % 1000 < 0 ? 1 : 0));
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d%02d%02d%02d%02d%02d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

} // namespace rmq
