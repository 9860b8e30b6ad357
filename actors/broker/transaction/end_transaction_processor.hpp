// The broker's end-transaction processor (RocketMQ EndTransactionProcessor
// with TransactionalMessageServiceImpl's commit and rollback): answers
// END_TRANSACTION (37). A commit reads the half message at its commit-log
// offset, checks it (checkPrepareMessage), puts the message into its real
// topic and queue, then writes the op record that resolves the half; a
// rollback writes the op record only. Exactly once per transaction: before
// putting, it looks for an earlier commit's copy (recent ones in memory,
// any other in the real topic through the store's index), so a second
// commit, a check-back answer after the producer's own, or a commit after
// a crash between put and op record delivers nothing again; and a commit
// of a transaction the check service holds as resolved without such a
// copy (rolled back or discarded, also before a restart) is refused. Holds no
// files: the node may spawn it on the shared scheduler. See
// docs/transactions.md, "Broker side".
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/broker/transaction_service.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

struct end_transaction_processor_options {
  /// A slave refuses every end (slave_not_available), as RocketMQ's.
  bool slave = false;
  /// transactionTimeOut: with CHECK_IMMUNITY_TIME_IN_SECONDS, a producer's
  /// own end after that time is refused (rejectCommitOrRollback).
  int64_t transaction_timeout_ms = 6000;
  /// Born times are wall-clock times.
  rmq::wall_clock wall_clock;
  /// How long the queue service and the commit log may take.
  caf::timespan request_timeout = std::chrono::seconds{10};
  /// Transactions whose outcome is kept in memory (oldest out first):
  /// the index covers the rest, once the queue service has caught up.
  size_t remembered = 100000;
};

/// One end waiting for an earlier one of the same transaction.
struct end_transaction_waiter {
  end_transaction_request req;
  std::string record;
  caf::typed_response_promise<caf::ok_atom> rp;
};

struct end_transaction_processor_state {
  end_transaction_processor_options options;
  queue_service_actor queue_service;
  commit_log_writer_actor commit_log;
  transaction_check_service_actor checks;
  /// Recent outcomes by transaction (UNIQ_KEY): a transaction_state.
  std::unordered_map<std::string, uint8_t> outcomes;
  std::deque<std::string> outcome_order;
  /// Transactions with an end in flight, and the ends queued behind it.
  std::unordered_map<std::string, std::deque<end_transaction_waiter>> busy;

  int64_t requests = 0;
  int64_t commits = 0;
  int64_t rollbacks = 0;
  int64_t unknowns = 0;
  /// Commits of a transaction committed before: nothing put again.
  int64_t repeated = 0;
  /// Of those, found in the real topic through the index.
  int64_t verified = 0;
  int64_t refused = 0;
  int64_t failures = 0;

  int64_t now_ms() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

end_transaction_processor_actor::behavior_type
end_transaction_processor(end_transaction_processor_actor::stateful_pointer<
                            end_transaction_processor_state>
                            self,
                          end_transaction_processor_options options,
                          queue_service_actor queue_service,
                          commit_log_writer_actor commit_log,
                          transaction_check_service_actor checks);

} // namespace rmq
