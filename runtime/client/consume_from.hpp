// Where a consumer starts on a queue its group has no offset for (RocketMQ
// RebalancePushImpl.computePullFromWhere), as a plan the caller carries
// out: the caller reads the offset store and makes the broker lookup the
// plan names, so this stays free of actors and I/O.
#pragma once

#include <cstdint>
#include <string>

#include "caf/expected.hpp"

#include "messages/broker/client_manager.hpp"

namespace rmq {

/// The broker lookup a start needs.
enum class start_lookup : uint8_t {
  /// None: `offset` is the start.
  none,
  /// The queue's max offset (GET_MAX_OFFSET).
  max_offset,
  /// The first offset stored at or after `timestamp_ms` (SEARCH_OFFSET_BY
  /// _TIMESTAMP).
  search_by_time,
};

struct start_plan {
  start_lookup lookup = start_lookup::none;
  int64_t offset = 0;
  int64_t timestamp_ms = 0;
};

/// The plan for `topic`'s queue. `stored_offset` is the offset store's
/// answer: >= 0 is the group's offset (used as it is), -1 means none;
/// anything else is query_not_found (the store could not answer). With
/// none: LAST → the queue's max (retry topic → 0), FIRST → 0 (an offset
/// below the queue's min is fixed later by OFFSET_ILLEGAL), TIMESTAMP →
/// search by `consume_timestamp_ms` (retry topic → max).
caf::expected<start_plan>
plan_start(consume_from_where from, const std::string& topic,
           int64_t stored_offset, int64_t consume_timestamp_ms);

/// The start once the plan's lookup answered `looked_up` (ignored for
/// start_lookup::none); system_error for a negative result (RocketMQ
/// "Found unexpected result").
caf::expected<int64_t> finish_start(const start_plan& plan, int64_t looked_up);

/// RocketMQ's default consumeTimestamp: half an hour before `now_ms`.
int64_t default_consume_timestamp(int64_t now_ms);

/// Reads a consumeTimestamp ("yyyyMMddHHmmss", e.g. "20240131235959") as
/// ms since the epoch, in UTC; invalid_parameter if malformed.
caf::expected<int64_t> parse_consume_timestamp(const std::string& text);

/// Writes ms since the epoch as "yyyyMMddHHmmss" in UTC.
std::string format_consume_timestamp(int64_t ms);

} // namespace rmq
