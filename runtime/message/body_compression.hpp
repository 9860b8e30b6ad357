// zlib compression of message bodies, as RocketMQ's producer does for
// bodies over compressMsgBodyOverHowmuch (sys flag COMPRESSED); consumers
// inflate them back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "caf/expected.hpp"

namespace rmq {

/// zlib (RFC 1950) stream of `body` at `level` (RocketMQ: 5).
std::string compress_body(std::string_view body, int level);

/// Inflates a zlib stream; corrupt_data for a broken stream and
/// message_illegal when the result would exceed `max_size`.
caf::expected<std::string> decompress_body(std::string_view data,
                                           size_t max_size);

} // namespace rmq
