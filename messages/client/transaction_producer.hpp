// The transaction producer (RocketMQ TransactionMQProducer) inside one
// process: its typed interface, its listener workers' interface and what
// they answer. What crosses the network to the broker is in
// messages/broker/transaction.hpp; see docs/transactions.md.
#pragma once

#include <cstdint>
#include <string>

#include "caf/atom.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/transaction.hpp"
#include "messages/client/client.hpp"
#include "messages/client/consumer.hpp"
#include "messages/common/common.hpp"
#include "messages/common/message_decl.hpp"

namespace rmq {

// -- atoms --------------------------------------------------------------------

/// Runs the listener's execute_local_transaction on a worker.
using execute_atom = caf::atom_constant<caf::atom("execute")>;

// -- messages -----------------------------------------------------------------

/// What the listener answered on a worker.
struct local_transaction_result {
  /// A transaction_state; unknown when the listener threw.
  uint8_t state = static_cast<uint8_t>(transaction_state::unknown);
  /// What the listener threw; empty when it answered.
  std::string error;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, local_transaction_result& x) {
  return f(caf::meta::type_name("rmq.local_transaction_result"), x.state,
           x.error);
}

RMQ_DECLARE_MESSAGE(local_transaction_result);

/// What a transactional send reports (RocketMQ TransactionSendResult): the
/// half message's send result and the local transaction's outcome, as
/// sent to the broker.
struct transaction_send_result {
  client_send_result send;
  /// A transaction_state: the listener's answer; rollback without asking
  /// it when the half was stored but not SEND_OK (RocketMQ rolls back a
  /// flush or slave timeout).
  uint8_t local_state = static_cast<uint8_t>(transaction_state::unknown);
  /// What the listener threw (the state is then unknown).
  std::string local_error;
  /// The end request could not be handed to the broker (no address, no
  /// connection); the broker checks the half back later.
  std::string end_error;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, transaction_send_result& x) {
  return f(caf::meta::type_name("rmq.transaction_send_result"), x.send,
           x.local_state, x.local_error, x.end_error);
}

RMQ_DECLARE_MESSAGE(transaction_send_result);

// -- interfaces ---------------------------------------------------------------

/// Runs the user's transaction listener, one call at a time (spawned
/// detached: the listener may block). An exception answers unknown.
using transaction_worker_actor = dumpable_actor::extend<
  caf::replies_to<execute_atom, client_message,
                  std::string>::with<local_transaction_result>,
  caf::replies_to<check_atom,
                  received_message>::with<local_transaction_result>>;

/// A transaction producer. Errors of a send are the send loop's
/// (messages/client/client.hpp producer_actor): the listener did not run then.
using transaction_producer_actor = dumpable_actor::extend<
  // Sends the half message, runs the listener's execute with `arg`, ends
  // the transaction at the broker that stored the half (one-way).
  caf::replies_to<send_atom, transaction_atom, client_message,
                  std::string>::with<transaction_send_result>,
  // A broker's check-back (from the heartbeat sender): the listener's
  // check runs, its answer goes to the asking broker.
  caf::reacts_to<check_transaction_state>,
  // Waits for transactions on their way, shuts the send loop down
  // (unregistering the group), stops the workers, quits.
  caf::replies_to<shutdown_atom>::with<caf::ok_atom>>;

} // namespace rmq
