// The remoting form of the broker's client-management requests (RocketMQ's
// ClientManageProcessor, ConsumerManageProcessor, the lock requests of
// AdminBrokerProcessor, SendMessageProcessor's send-back and
// EndTransactionProcessor): HEART_BEAT (34), UNREGISTER_CLIENT (35),
// CONSUMER_SEND_MSG_BACK (36), END_TRANSACTION (37),
// GET_CONSUMER_LIST_BY_GROUP (38), LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ
// (42), decoded into the typed requests our own clients send, and their
// answers (docs/remoting.md, "Clients").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "messages/broker/client_manager.hpp"
#include "messages/broker/send_back.hpp"
#include "messages/broker/transaction.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// HEART_BEAT: the HeartbeatData body (clientID, producerDataSet,
/// consumerDataSet). False and `err` set when it is not one.
bool decode_heartbeat(const remoting_command& cmd, client_heartbeat& out,
                      std::string& err);

/// SubscriptionData as RocketMQ writes it.
nlohmann::json subscription_json(const subscription_data& s);

/// HeartbeatData as RocketMQ's clients write it (tests, rmq-bench).
nlohmann::json heartbeat_json(const client_heartbeat& hb);

/// UNREGISTER_CLIENT: clientID, producerGroup, consumerGroup.
bool decode_unregister_client(const remoting_command& cmd,
                              unregister_client_request& out, std::string& err);

/// GET_CONSUMER_LIST_BY_GROUP: consumerGroup.
bool decode_consumer_list(const remoting_command& cmd,
                          get_consumer_list_request& out, std::string& err);

/// SUCCESS with {"consumerIdList": [...]}.
remoting_command consumer_list_response(const remoting_command& req,
                                        const consumer_list& ids);

/// GET_CONSUMER_CONNECTION_LIST (203): consumerGroup.
bool decode_consumer_connection(const remoting_command& cmd,
                                get_consumer_connection_request& out,
                                std::string& err);

/// SUCCESS with ConsumerConnection (connectionSet, subscriptionTable,
/// consumeType, messageModel, consumeFromWhere).
/// GetConsumerRunningInfoRequestHeader: consumerGroup, clientId,
/// jstackEnable (GET_CONSUMER_RUNNING_INFO, 307), as an admin sends it to
/// a broker and the broker to the client.
bool decode_consumer_running_info(const remoting_command& cmd,
                                  get_consumer_running_info_request& out,
                                  std::string& err);

/// The request the broker sends the client (Broker2Client#callClient).
remoting_command
consumer_running_info_request(const get_consumer_running_info_request& x);

/// SUCCESS with the client's ConsumerRunningInfo as the body.
remoting_command consumer_running_info_response(const remoting_command& req,
                                                const consumer_running_info& x);

remoting_command consumer_connection_response(const remoting_command& req,
                                              const consumer_connection& x);

/// LOCK_BATCH_MQ and UNLOCK_BATCH_MQ: the Lock/UnlockBatchRequestBody
/// (consumerGroup, clientId, mqSet).
bool decode_lock_batch(const remoting_command& cmd, lock_batch_request& out,
                       std::string& err);
bool decode_unlock_batch(const remoting_command& cmd, unlock_batch_request& out,
                         std::string& err);

/// SUCCESS with {"lockOKMQSet": [...]}.
remoting_command locked_response(const remoting_command& req,
                                 const locked_queues& queues);

/// CONSUMER_SEND_MSG_BACK: offset, group, delayLevel, originMsgId,
/// originTopic, unitMode, maxReconsumeTimes.
bool decode_send_back(const remoting_command& cmd,
                      consumer_send_back_request& out, std::string& err);

/// END_TRANSACTION: producerGroup, tranStateTableOffset, commitLogOffset,
/// commitOrRollback (RocketMQ's sys flag: 8 commit, 12 rollback, 0 not
/// known), fromTransactionCheck, msgId, transactionId.
bool decode_end_transaction(const remoting_command& cmd,
                            end_transaction_request& out, std::string& err);

} // namespace rmq::remoting
