// What a broker sends a remoting client on the client's own connection
// (RocketMQ's Broker2Client): NOTIFY_CONSUMER_IDS_CHANGED (40) and
// CHECK_TRANSACTION_STATE (39) one-way, PUSH_REPLY_MESSAGE_TO_CLIENT (326)
// as a request whose answer the broker does not wait for
// (docs/remoting.md, "Clients").
#pragma once

#include <cstdint>

#include "messages/broker/client_manager.hpp"
#include "messages/broker/reply.hpp"
#include "messages/broker/transaction.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// consumerGroup.
remoting_command notify_consumer_ids_changed(const consumer_ids_changed& x);

/// CheckTransactionStateRequestHeader (tranStateTableOffset,
/// commitLogOffset, msgId, transactionId, offsetMsgId, brokerName) with
/// the half message's stored record as the body.
remoting_command check_transaction_request(const check_transaction_state& x);

/// ReplyMessageRequestHeader with the reply's body.
remoting_command push_reply_request(const push_reply_message& x);

} // namespace rmq::remoting
