// Encodes and decodes one commit-log record in RocketMQ's layout
// (MessageExtEncoder / CommitLog#checkMessageAndReturnSize). Stored bytes are
// served to readers as they are, so this is the only place that knows them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/store/store.hpp"

namespace rmq {

/// What the store adds to a message when it appends it.
struct record_stamp {
  int64_t queue_offset = 0;
  int64_t phys_offset = 0;
  int64_t store_timestamp = 0;
  uint32_t store_ip = 0;
  uint32_t store_port = 0;
};

/// Returns the size of the encoded record (V1 magic unless the topic is
/// longer than 127 bytes).
size_t record_size(const store_message& msg);

/// Writes the record for `msg` into `out`, which holds `record_size(msg)`
/// bytes. The total-size field is written last, so a process killed in the
/// middle leaves a record that never looks complete.
void encode_record(const store_message& msg, const record_stamp& stamp,
                   char* out);

/// A decoded record; the views point into the decoded buffer.
struct record_view {
  int32_t total_size = 0;
  uint32_t magic = 0;
  uint32_t body_crc = 0;
  int32_t queue_id = 0;
  int32_t flag = 0;
  int64_t queue_offset = 0;
  int64_t phys_offset = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  int64_t store_timestamp = 0;
  /// IPv4 hosts in host byte order; 0 when the record has IPv6 hosts.
  uint32_t born_ip = 0;
  uint32_t born_port = 0;
  uint32_t store_ip = 0;
  uint32_t store_port = 0;
  int32_t reconsume_times = 0;
  int64_t prepared_transaction_offset = 0;
  std::string_view body;
  std::string_view topic;
  std::string_view properties;
};

enum class decode_status {
  ok,
  /// The blank marker: the rest of the segment is unused.
  blank,
  /// Zero bytes where a record would start: nothing was written here.
  end_of_data,
  /// Bad magic, impossible length, length mismatch or CRC mismatch.
  corrupt,
};

/// Decodes the record at `data` with `available` bytes left in the segment.
decode_status decode_record(const char* data, size_t available,
                            record_view& out, bool check_crc = true);

/// Header fields the body CRC does not cover must be ones a writer can
/// write: a queue id in range, and a queue offset no larger than the number
/// of records that fit before this one.
bool sane_header(const record_view& rec);

/// Returns why the bytes at `data` (log offset `phys`, `available` bytes to
/// the segment end) are not a valid record, e.g. "body CRC mismatch".
std::string describe_damage(const char* data, size_t available, int64_t phys);

/// The consumer side of a pull: decodes every record of `res.buffer`,
/// body CRC included, so a corrupt body is an error (`corrupt_data` naming
/// its queue and phys offset), never data. The views point into `res`.
caf::expected<std::vector<record_view>>
decode_pulled(const get_message_result& res);

/// `decode_records` without an expected count.
constexpr size_t all_records = static_cast<size_t>(-1);

/// The client side of an answer made of stored records laid end to end (a
/// pull's buffer, a query's, a view's): decodes them all, body CRC
/// included. corrupt_data names the first bad one, and so does a buffer
/// with bytes left over or with another number of records than `count`
/// (when given). The views point into `buffer`.
caf::expected<std::vector<record_view>>
decode_records(std::string_view buffer, size_t count = all_records);

/// Returns the store timestamp of an encoded, already verified record.
int64_t stored_timestamp(const char* record);

// -- properties (`k\x01v\x02...`) ----------------------------------------------

/// Returns the value of `key`, or an empty view.
std::string_view find_property(std::string_view props, std::string_view key);

void append_property(std::string& props, std::string_view key,
                     std::string_view value);

// -- hashes and ids ----------------------------------------------------------

/// Java's String#hashCode (equal for ASCII text).
int32_t java_hash(std::string_view str);

/// The consume-queue tags code of a TAGS value (0 without tags).
int64_t tags_code(std::string_view tags);

} // namespace rmq
