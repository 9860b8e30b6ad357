#include "messages/broker/transaction.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

const char* to_string(transaction_state x) {
  switch (x) {
    case transaction_state::commit:
      return "COMMIT_MESSAGE";
    case transaction_state::rollback:
      return "ROLLBACK_MESSAGE";
    case transaction_state::unknown:
      break;
  }
  return "UNKNOW";
}

RMQ_DEFINE_MESSAGE(end_transaction_request, producer_group,
                   tran_state_table_offset, commit_log_offset, state,
                   from_transaction_check, msg_id, transaction_id)

RMQ_DEFINE_MESSAGE(check_transaction_state, producer_group, broker_name,
                   broker_addr, tran_state_table_offset, commit_log_offset,
                   msg_id, transaction_id, offset_msg_id, record)

} // namespace rmq
