// What a program implements for transactional messages (RocketMQ
// TransactionListener): run the local transaction after the half message
// is stored, and answer the broker's check-backs. Both run on the
// producer's detached workers (actors/client/producer/transaction_worker.*), never
// on the shared scheduler, so they may block.
#pragma once

#include <string>

#include "messages/broker/transaction.hpp"
#include "messages/client/client.hpp"
#include "messages/client/consumer.hpp"

namespace rmq {

class transaction_listener {
public:
  virtual ~transaction_listener() = default;

  /// Runs the local transaction of `msg` (its half message is stored);
  /// `arg` is what the program passed to the send. Commit makes the
  /// message visible, rollback discards it, unknown leaves it to the
  /// check-back. An exception counts as unknown.
  virtual transaction_state
  execute_local_transaction(const client_message& msg, const std::string& arg)
    = 0;

  /// Returns how the transaction of the half message `msg` ended (the
  /// broker asks when it got no commit or rollback in time). An exception
  /// counts as unknown: the broker asks again later.
  virtual transaction_state check_local_transaction(const received_message& msg)
    = 0;
};

} // namespace rmq
