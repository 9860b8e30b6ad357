// RocketMQ's rules for transactional messages at the broker
// (TransactionalMessageBridge, TransactionalMessageUtil, the
// EndTransactionProcessor's endMessageTransaction and the check listener's
// discard): how a half message is stored, how its copies and its committed
// message are rebuilt from the stored record, and the op records that
// resolve it. The one place for these rules: the send processor, the
// end-transaction processor and the transaction check service use it.
// See docs/transactions.md, "Broker side".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/store/store.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

/// Where half messages wait (queue 0), their resolutions (op records,
/// queue 0) and the half messages checked too often.
constexpr char trans_half_topic[] = "RMQ_SYS_TRANS_HALF_TOPIC";
constexpr char trans_op_half_topic[] = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
constexpr char trans_check_max_time_topic[] = "TRANS_CHECK_MAX_TIME_TOPIC";

/// MessageConst names the broker reads or writes on transactions.
constexpr char property_producer_group[] = "PGROUP";
constexpr char property_transaction_check_times[] = "TRANSACTION_CHECK_TIMES";
constexpr char property_check_immunity_time[]
  = "CHECK_IMMUNITY_TIME_IN_SECONDS";
/// TransactionalMessageUtil.TRANSACTION_ID: the half's UNIQ_KEY, also on
/// its op records here (docs/transactions.md).
constexpr char property_transaction_id[] = "__transactionId__";
/// The op record's tag (TransactionalMessageUtil.REMOVE_TAG).
constexpr char op_remove_tag[] = "d";

/// Whether a single send is a half message (SendMessageProcessor): TRAN_MSG
/// is "true" and it is not an old client's send-back (reconsume times > 0
/// with a DELAY level, which RocketMQ stores as an ordinary message).
bool is_half_message(std::string_view properties, int32_t reconsume_times,
                     int32_t delay_level);

/// Whether encoded properties say TRAN_MSG=true (batches refuse it).
bool has_tran_msg(std::string_view properties);

/// Stores `msg` as a half message (parseHalfMessageInner): the UNIQ_KEY
/// also as __transactionId__, topic and queue kept in REAL_TOPIC /
/// REAL_QID, the sys flag's transaction bits reset to NOT_TYPE (so the
/// half queue is built), topic RMQ_SYS_TRANS_HALF_TOPIC, queue 0.
void to_half(store_message& msg);

/// The message a commit puts (endMessageTransaction): topic and queue from
/// REAL_TOPIC / REAL_QID, body, flag, born time and host, reconsume times,
/// every property but REAL_TOPIC, REAL_QID and TRAN_MSG; the sys flag's
/// transaction type COMMIT; the half's commit-log offset as prepared
/// transaction offset. corrupt_data without a valid REAL_TOPIC / REAL_QID.
caf::expected<store_message> from_half(const record_view& rec);

/// The copy of a half message that a check re-puts to the half queue
/// (renewHalfMessageInner) with TRANSACTION_CHECK_TIMES = `check_times`.
store_message half_copy(const record_view& rec, int32_t check_times);

/// A half message checked too often, for TRANS_CHECK_MAX_TIME_TOPIC queue
/// 0 (the check listener's toMessageExtBrokerInner).
store_message to_check_max_time(const record_view& rec);

/// The op record that resolves the half at `half_queue_offset`: topic
/// RMQ_SYS_TRANS_OP_HALF_TOPIC, queue 0, tag "d", body the offset in
/// decimal, __transactionId__ = the half's UNIQ_KEY.
store_message make_op_message(int64_t half_queue_offset,
                              std::string_view transaction_id, int64_t now_ms);

/// The half queue offsets of an op record's body ("3" or "3,4,5");
/// tokens that are not numbers are skipped.
std::vector<int64_t> parse_op_offsets(std::string_view body);

/// TRANSACTION_CHECK_TIMES, 0 when absent or not a number.
int32_t stored_check_times(std::string_view properties);

/// How long a half message is spared checks (getImmunityTime):
/// CHECK_IMMUNITY_TIME_IN_SECONDS * 1000, or `transaction_timeout_ms` when
/// it is absent, -1 or not a number.
int64_t check_immunity_ms(std::string_view properties,
                          int64_t transaction_timeout_ms);

} // namespace rmq
