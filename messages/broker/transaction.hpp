// Transactional messages between a producer and the broker (RocketMQ
// EndTransactionRequestHeader, CheckTransactionStateRequestHeader): what
// crosses the network. The broker keeps half messages in
// RMQ_SYS_TRANS_HALF_TOPIC and their resolutions in
// RMQ_SYS_TRANS_OP_HALF_TOPIC; see docs/transactions.md.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"

#include "messages/common/message_decl.hpp"

namespace rmq {

/// A check: the broker's check service runs a round now (tests,
/// operators); a transaction producer's worker runs the listener's
/// check_local_transaction.
using check_atom = caf::atom_constant<caf::atom("check")>;

/// A local transaction's outcome (RocketMQ LocalTransactionState; on the
/// wire, MessageSysFlag's TRANSACTION_COMMIT_TYPE / ROLLBACK / NOT_TYPE).
enum class transaction_state : uint8_t {
  commit = 0,
  rollback = 1,
  /// Not known yet: the broker checks back later.
  unknown = 2,
};

/// "COMMIT_MESSAGE", "ROLLBACK_MESSAGE", "UNKNOW" (RocketMQ's spelling).
const char* to_string(transaction_state x);

/// END_TRANSACTION (37): a producer commits or rolls back one half
/// message at the broker that stored it. Producers send it one-way (as
/// RocketMQ's endTransactionOneway); the broker answers ok to an ask.
struct end_transaction_request {
  std::string producer_group;
  /// The half message's offset in its queue of RMQ_SYS_TRANS_HALF_TOPIC
  /// (RocketMQ tranStateTableOffset; the send result's queue offset).
  int64_t tran_state_table_offset = 0;
  /// Its commit-log offset (from the send result's offsetMsgId).
  int64_t commit_log_offset = 0;
  /// A transaction_state.
  uint8_t state = static_cast<uint8_t>(transaction_state::unknown);
  /// Whether this answers a check-back (CHECK_TRANSACTION_STATE).
  bool from_transaction_check = false;
  /// The message's UNIQ_KEY.
  std::string msg_id;
  /// The producer's transaction id (RocketMQ uses the UNIQ_KEY too).
  std::string transaction_id;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, end_transaction_request& x) {
  return f(caf::meta::type_name("rmq.end_transaction_request"),
           x.producer_group, x.tran_state_table_offset, x.commit_log_offset,
           x.state, x.from_transaction_check, x.msg_id, x.transaction_id);
}

RMQ_DECLARE_MESSAGE(end_transaction_request);

/// CHECK_TRANSACTION_STATE (39): the broker asks a live producer of the
/// half message's group how its transaction ended. Sent one-way to the
/// client's channel (the actor that sends its heartbeats); the producer
/// answers with an end_transaction_request (from_transaction_check) to
/// the broker at `broker_addr`.
struct check_transaction_state {
  std::string producer_group;
  /// The asking broker, where the answer goes.
  std::string broker_name;
  std::string broker_addr;
  int64_t tran_state_table_offset = 0;
  int64_t commit_log_offset = 0;
  std::string msg_id;
  std::string transaction_id;
  std::string offset_msg_id;
  /// The half message as stored (one record in the store's encoding, as a
  /// pull carries them), for the listener's check.
  std::string record;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, check_transaction_state& x) {
  return f(caf::meta::type_name("rmq.check_transaction_state"),
           x.producer_group, x.broker_name, x.broker_addr,
           x.tran_state_table_offset, x.commit_log_offset, x.msg_id,
           x.transaction_id, x.offset_msg_id, x.record);
}

RMQ_DECLARE_MESSAGE(check_transaction_state);

} // namespace rmq
