// RocketMQ's two message ids. The offsetMsgId (MessageDecoder
// createMessageId) names where the broker stored a message: store host and
// commit-log offset. The UNIQ_KEY (MessageClientIDSetter) is made by the
// producer before sending, so it stays the same over retries: client ip,
// pid, a per-process hash, ms since the start of the month and a counter.
// Both are 32 uppercase hex characters for IPv4 hosts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "caf/expected.hpp"

namespace rmq {

// -- offsetMsgId --------------------------------------------------------------

/// A decoded offsetMsgId.
struct offset_msg_id {
  uint32_t ip = 0; // IPv4, host byte order
  uint32_t port = 0;
  int64_t offset = 0; // commit-log (phys) offset
};

/// Characters of an offsetMsgId or a UNIQ_KEY (IPv4 form).
constexpr size_t msg_id_size = 32;

/// Returns the offsetMsgId: hex of ip (4 bytes) + port (4) + offset (8).
std::string encode_offset_msg_id(uint32_t ip, uint32_t port, int64_t offset);

/// Writes the offsetMsgId's `msg_id_size` characters to `out` (the
/// batch answer joins them without a string per id).
void write_offset_msg_id(char* out, uint32_t ip, uint32_t port, int64_t offset);

/// Decodes an offsetMsgId (either hex case); invalid_parameter if it is not
/// 32 hex characters. (RocketMQ also has a 56-character IPv6 form; our
/// stores write IPv4 hosts only.)
caf::expected<offset_msg_id> decode_offset_msg_id(std::string_view id);

// -- UNIQ_KEY -----------------------------------------------------------------

/// The fields of a UNIQ_KEY (IPv4 form).
struct uniq_key_fields {
  uint32_t ip = 0;
  uint16_t pid = 0;
  int32_t hash = 0;
  /// Milliseconds since the start of the month the id was made in.
  uint32_t month_ms = 0;
  uint16_t counter = 0;
};

/// Decodes a UNIQ_KEY; invalid_parameter if it is not 32 hex characters.
caf::expected<uniq_key_fields> decode_uniq_key(std::string_view id);

/// Returns when a UNIQ_KEY was made (ms since the epoch), read against
/// `now_ms`: in the current month, or the previous one if that would lie
/// in the future (RocketMQ getNearlyTimeFromID). Months are UTC months.
int64_t uniq_key_time(const uniq_key_fields& id, int64_t now_ms);

/// Returns "a.b.c.d" of an IPv4 address in host byte order.
std::string ipv4_to_string(uint32_t ip);

/// Returns the start of the UTC month holding `ms` (ms since the epoch).
int64_t month_start_ms(int64_t ms);

/// Returns the start of the UTC month after the one holding `ms`.
int64_t next_month_start_ms(int64_t ms);

/// Makes UNIQ_KEYs for one process (a producer, or a broker filling in a
/// missing id). Not thread-safe: one per actor. The caller passes the wall
/// clock, so tests choose the time.
class uniq_key_generator {
public:
  /// `hash` stands for Java's class-loader hash: anything that tells two
  /// processes with the same ip and pid apart (e.g. a random number).
  uniq_key_generator(uint32_t ip, uint16_t pid, int32_t hash);

  /// Returns a new id made at `now_ms`; the counter wraps at 65536.
  std::string next(int64_t now_ms);

  /// Writes a new id's `msg_id_size` characters to `out`, as `next`.
  void next(int64_t now_ms, char* out);

private:
  char prefix_[20];   // hex of ip + pid + hash
  int64_t start_ = 0; // start of the current month
  int64_t next_start_ = 0;
  uint16_t counter_ = 0;
};

} // namespace rmq
