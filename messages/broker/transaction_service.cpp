#include "messages/broker/transaction_service.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(transaction_group_pending, producer_group, pending,
                   oldest_store_timestamp)

RMQ_DEFINE_MESSAGE(transaction_progress, half_offset, half_max_offset,
                   op_offset, op_max_offset, pending, checks, discarded, groups)

} // namespace rmq
