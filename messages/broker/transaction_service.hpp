// The broker's transaction actors (RocketMQ EndTransactionProcessor,
// TransactionalMessageCheckService): their interfaces and the pending
// half messages they report. Implemented in
// actors/broker/transaction/end_transaction_processor.* and
// actors/broker/transaction/transaction_check_service.*; see docs/transactions.md,
// "Broker side". The wire messages are in messages/broker/transaction.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/transaction.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"
#include "messages/store/store.hpp"

namespace rmq {

/// Asks the check service whether a transaction was resolved.
using resolved_atom = caf::atom_constant<caf::atom("resolved")>;

/// Unresolved half messages of one producer group.
struct transaction_group_pending {
  std::string producer_group;
  /// Half messages neither committed, rolled back nor discarded (each
  /// transaction once, however often it was checked).
  int64_t pending = 0;
  /// Store time (wall ms) of the oldest of them.
  int64_t oldest_store_timestamp = 0;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, transaction_group_pending& x) {
  return f(caf::meta::type_name("rmq.transaction_group_pending"),
           x.producer_group, x.pending, x.oldest_store_timestamp);
}

RMQ_DECLARE_MESSAGE(transaction_group_pending);

/// Where the check service stands (brokerStatus, rmq-admin).
struct transaction_progress {
  /// Every half queue offset below is resolved or superseded (what
  /// the progress file keeps, RocketMQ's CID_SYS_RMQ_TRANS offset).
  int64_t half_offset = 0;
  int64_t half_max_offset = 0;
  /// The op queue offset the next start reads from.
  int64_t op_offset = 0;
  int64_t op_max_offset = 0;
  /// Pending half messages in all groups.
  int64_t pending = 0;
  /// Check-backs sent and half messages discarded since the start.
  int64_t checks = 0;
  int64_t discarded = 0;
  /// Per producer group, sorted by name.
  std::vector<transaction_group_pending> groups;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, transaction_progress& x) {
  return f(caf::meta::type_name("rmq.transaction_progress"), x.half_offset,
           x.half_max_offset, x.op_offset, x.op_max_offset, x.pending, x.checks,
           x.discarded, x.groups);
}

RMQ_DECLARE_MESSAGE(transaction_progress);

/// Interface of the end-transaction processor: END_TRANSACTION (37).
/// Answers ok once the outcome is stored (commit: the message in its real
/// queue and the op record; rollback: the op record; unknown: nothing).
using end_transaction_processor_actor = dumpable_actor::extend<
  caf::replies_to<end_transaction_request>::with<caf::ok_atom>>;

/// Interface of the transaction check service.
using transaction_check_service_actor = dumpable_actor::extend<
  // Pending half messages per producer group.
  caf::replies_to<caf::get_atom>::with<transaction_progress>,
  // A check round now; answered when it is done.
  caf::replies_to<check_atom>::with<transaction_progress>,
  // The queue service's arrival notes for the half and op topics.
  caf::reacts_to<arrival_atom, int64_t>,
  // Its own check timer (generation).
  caf::reacts_to<tick_atom, uint64_t>,
  // Whether the transaction of UNIQ_KEY `key` whose half has queue offset
  // `q` was resolved (committed, rolled back or discarded): true only when
  // the queues read so far say so, after reading what arrived.
  caf::replies_to<resolved_atom, std::string, int64_t>::with<bool>>;

} // namespace rmq
