// Whether a message that waited in a system topic (delay levels, timers)
// was already delivered to its real topic: the check after a restart that
// keeps the broker from delivering twice (the last pass before a crash may
// have put messages whose progress never reached disk). Used by the
// schedule and the timer services.
#pragma once

#include <cstdint>

#include "messages/store/store.hpp"

namespace rmq {

/// Returns whether `msg` has a UNIQ_KEY, which the lookup needs (a message
/// without one cannot be checked).
bool has_uniq_key(const store_message& msg);

/// The index lookup of `msg`'s UNIQ_KEY in its real topic; `msg` must
/// have a UNIQ_KEY.
query_message_request delivered_copy_query(const store_message& msg);

/// Whether `res`, the answer to delivered_copy_query(msg), holds the
/// delivered copy of `msg`: its topic and queue, its reconsume times,
/// stored at or after `not_before_ts` (when the waiting record was stored).
bool holds_delivered_copy(const query_message_result& res,
                          const store_message& msg, int64_t not_before_ts);

} // namespace rmq
