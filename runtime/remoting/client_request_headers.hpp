// The custom headers of a broker's client requests (docs/remoting.md,
// "Broker request headers"): each remoting request as the typed request
// our own clients send, and each typed answer as the response RocketMQ's
// broker gives.
// Field names and required fields follow RocketMQ's CommandCustomHeader
// classes (SendMessageRequestHeader and its V2 with one-letter names,
// PullMessageRequestHeader, the offset headers).
#pragma once

#include <string>

#include "messages/broker/pull.hpp"
#include "messages/broker/send.hpp"
#include "messages/store/store.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// Reads extFields by name, remembering the first field that is missing
/// or no number; its error is what RocketMQ's header decoder says.
class header_reader {
public:
  explicit header_reader(const remoting_command& cmd) : cmd_(cmd) {
  }

  std::string text(const char* name, bool required = true);
  int32_t int32(const char* name, bool required = true, int32_t fallback = 0);
  int64_t int64(const char* name, bool required = true, int64_t fallback = 0);
  bool boolean(const char* name, bool fallback = false);

  bool ok() const {
    return error_.empty();
  }

  const std::string& error() const {
    return error_;
  }

  /// True when every field read well; else false with `err` set.
  bool done(std::string& err) const;

private:
  const std::string* find(const char* name, bool required);

  const remoting_command& cmd_;
  std::string error_;
};

/// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) and
/// SEND_REPLY_MESSAGE(_V2) (324, 325); the V2 codes and 320 use the
/// one-letter names. The body is the message body (a batch's encoded
/// messages for 320). The born host is left to the caller (the
/// connection's peer). False and `err` set on a bad header.
bool decode_send(const remoting_command& cmd, send_message_request& out,
                 std::string& err);

/// The answer to a stored send: its status as the response code
/// (FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE: stored),
/// `msgId` (offset message ids, comma-joined for a batch), `queueId`,
/// `queueOffset` (a batch's first), `transactionId` (the UNIQ_KEY), and
/// `MSG_REGION` ("DefaultRegion") and `TRACE_ON` ("true") as
/// SendMessageProcessor adds them.
remoting_command send_response(const remoting_command& req,
                               const send_result& res);

/// PULL_MESSAGE (11).
bool decode_pull(const remoting_command& cmd, pull_message_request& out,
                 std::string& err);

/// FOUND as SUCCESS with the stored records as the body; NO_NEW_MSG as
/// PULL_NOT_FOUND, NO_MATCHED_MSG as PULL_RETRY_IMMEDIATELY,
/// OFFSET_ILLEGAL as PULL_OFFSET_MOVED; the four offsets in every answer.
/// The remark is the store's GetMessageStatus name, as RocketMQ writes it:
/// FOUND; NO_MESSAGE_IN_QUEUE (empty queue) or OFFSET_OVERFLOW_ONE;
/// NO_MATCHED_MESSAGE; OFFSET_OVERFLOW_BADLY (sent on to the end) or
/// OFFSET_TOO_SMALL.
remoting_command pull_response(const remoting_command& req,
                               pull_message_result res);

/// QUERY_CONSUMER_OFFSET (14).
bool decode_query_offset(const remoting_command& cmd, query_offset_request& out,
                         std::string& err);

/// UPDATE_CONSUMER_OFFSET (15).
bool decode_update_offset(const remoting_command& cmd,
                          update_offset_request& out, std::string& err);

/// SEARCH_OFFSET_BY_TIMESTAMP (29).
bool decode_search_offset(const remoting_command& cmd,
                          search_offset_request& out, std::string& err);

/// GET_MAX_OFFSET (30), GET_MIN_OFFSET (31), GET_EARLIEST_MSG_STORETIME
/// (32): topic and queue.
bool decode_get_offset(const remoting_command& cmd, get_offset_request& out,
                       std::string& err);

/// SUCCESS with extFields `offset`.
remoting_command offset_response(const remoting_command& req, int64_t offset);

} // namespace rmq::remoting
