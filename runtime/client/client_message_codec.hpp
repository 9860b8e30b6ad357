// A program's client_message into the broker's send request, with
// RocketMQ's client-side checks (Validators.checkMessage) done before
// anything goes on the network.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "messages/broker/send.hpp"
#include "messages/client/client.hpp"

namespace rmq {

struct message_codec_options {
  std::string producer_group;
  /// RocketMQ maxMessageSize.
  size_t max_message_size = 4 * 1024 * 1024;
  /// Bodies of at least this many bytes are zlib-compressed (RocketMQ
  /// compressMsgBodyOverHowmuch, compared with >=).
  size_t compress_over = 4096;
  int compress_level = 5;
  std::string default_topic = "TBW102";
  int32_t default_queue_nums = 4;
  uint32_t born_ip = 0;
  uint32_t born_port = 0;
};

/// message_illegal (empty or oversize body, bad or forbidden topic,
/// reserved or oversize properties, delay level outside 0..18, a negative
/// deliver time or delay, two kinds of delay together) with the
/// reason in the detail; none for a message that may be sent.
/// `topic_checked`: its topic passed this check already (a batch's other
/// messages share the first one's).
caf::error check_client_message(const client_message& msg,
                                const message_codec_options& opts,
                                bool topic_checked = false);

/// The request for one message: TAGS, KEYS, DELAY, TIMER_DELIVER_MS,
/// TIMER_DELAY_MS, UNIQ_KEY = `uniq_key`,
/// WAIT=true and the user's properties; the body compressed (sys flag
/// COMPRESSED) from `compress_over` bytes on. Assumes a checked message.
send_message_request
make_send_request(const client_message& msg, const std::string& uniq_key,
                  int64_t born_ms, const message_codec_options& opts);

/// One SEND_BATCH_MESSAGE request for `msgs` (RocketMQ batch encoding, one
/// UNIQ_KEY each, in order): message_illegal for an empty batch, mixed
/// topics, a delay level, a deliver time or delay, a retry topic, or a total over max_message_size.
/// `checked`: every message passed check_client_message already (not done
/// again).
caf::expected<send_message_request>
make_batch_request(const std::vector<client_message>& msgs,
                   const std::vector<std::string>& uniq_keys, int64_t born_ms,
                   const message_codec_options& opts, bool checked = false);

/// Makes `req` a transaction's half message (RocketMQ
/// sendMessageInTransaction + sendKernelImpl): TRAN_MSG=true,
/// PGROUP=`group` and the sys flag TRANSACTION_PREPARED_TYPE.
void mark_transaction_half(send_message_request& req, const std::string& group);

/// The client's view of a broker's answer: queue and ids.
client_send_result to_client_result(const send_result& res,
                                    const message_queue& queue);

} // namespace rmq
