// RocketMQ's batch body (MessageDecoder encodeMessages / decodeMessages):
// a producer sends many messages of one topic as one buffer, each message
//   int32 total size | int32 magic | int32 body CRC | int32 flag |
//   int32 body length | body | int16 properties length | properties
// big-endian. The broker splits it again and stores each one on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

namespace rmq {

/// One message of a batch: what the batch carries per message.
struct batch_entry {
  int32_t flag = 0;
  std::string body;
  /// RocketMQ's encoded form `k\x01v\x02...`.
  std::string properties;
  /// The body's CRC-32 as `decode_batch` checked it (-1 otherwise), so
  /// the store need not compute it again. Not compared, not encoded.
  int64_t body_crc = -1;
};

bool operator==(const batch_entry& x, const batch_entry& y);

/// Size of one encoded entry without its body and properties.
constexpr size_t batch_entry_overhead = 4 + 4 + 4 + 4 + 4 + 2;

/// Largest properties field of an entry (its length is an int16).
constexpr size_t max_batch_properties_size = 32767;

/// Most messages a batch may hold; RocketMQ has no count limit, but the
/// batch body is capped at maxMessageSize and each entry takes at least
/// `batch_entry_overhead` + 1 bytes, so this only stops absurd inputs.
constexpr size_t max_batch_entries = 1 << 20;

/// Appends one encoded entry to `out`; invalid_parameter (and `out`
/// unchanged) when `properties` do not fit the int16 length field or the
/// entry the int32 total size. `encode_batch` is this for every entry.
caf::error append_batch_entry(std::string& out, int32_t flag,
                              std::string_view body,
                              std::string_view properties);

/// Encodes `entries` into one buffer; invalid_parameter when an entry's
/// properties do not fit the int16 length field. Writes the body CRC where
/// RocketMQ writes 0, so the broker can check the body end to end.
caf::expected<std::string>
encode_batch(const std::vector<batch_entry>& entries);

/// Decodes a batch body. Strict: every length must fit, the magic must be
/// 0, the body CRC must match, nothing may follow the last entry, and an
/// empty buffer is no batch. Answers message_illegal naming the entry and
/// what is wrong. Each entry's properties get room for `properties_extra`
/// more bytes (what the broker appends), so they grow without a copy.
caf::expected<std::vector<batch_entry>>
decode_batch(std::string_view buf, size_t properties_extra = 0);

} // namespace rmq
