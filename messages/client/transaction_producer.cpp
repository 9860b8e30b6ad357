#include "messages/client/transaction_producer.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(local_transaction_result, state, error)

RMQ_DEFINE_MESSAGE(transaction_send_result, send, local_state, local_error,
                   end_error)

} // namespace rmq
