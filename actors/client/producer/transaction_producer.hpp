// The transaction producer (RocketMQ TransactionMQProducer): one actor
// (transaction_producer_main; the facade class has the plain name) on top
// of a send loop of its own group.
//
// A transactional send goes as a half message through the send loop (sync,
// with its retries); the user's listener then runs the local transaction
// on a detached worker, and the outcome goes one-way to the broker that
// stored the half (END_TRANSACTION). A broker's check-back reaches the
// producer through the client instance's heartbeat sender (the broker's
// channel to the client); the listener's check runs on a second worker
// and its answer goes to the asking broker. See docs/transactions.md,
// "Producer side".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/producer/producer.hpp"
#include "actors/client/producer/transaction_listener.hpp"
#include "messages/client/transaction_producer.hpp"

namespace rmq {

struct transaction_producer_config {
  /// The group, NameServers, send timeout and retries of the half
  /// messages (a producer's settings).
  producer_config producer;
  /// RocketMQ checkRequestHoldMax: check-backs that wait behind the one
  /// the check worker runs (RocketMQ checkThreadPoolMinSize 1); more are
  /// dropped with a warning (the broker asks again later).
  size_t check_request_hold_max = 2000;
  /// Workers that run execute_local_transaction. RocketMQ runs it on each
  /// sending thread; one worker runs one local transaction at a time.
  size_t execute_threads = 1;
  /// How long the facade waits for the listener's execute beyond the
  /// send's own bound; past it the facade answers request_timeout (the
  /// transaction still ends when the listener returns).
  caf::timespan local_transaction_wait = std::chrono::seconds{60};
  /// Workers on threads of their own (a listener may block); tests run
  /// them on the deterministic coordinator, which cannot run detached
  /// actors.
  bool detached = true;
};

/// A transactional send on its way.
struct pending_transaction {
  client_message msg;
  transaction_send_result res;
  caf::typed_response_promise<transaction_send_result> rp;
  /// The execute worker it runs on (its load drops when it answers).
  size_t worker = 0;
};

struct transaction_producer_state {
  transaction_producer_config cfg;
  client_instance inst;
  std::shared_ptr<transaction_listener> listener;
  /// The send loop of the half messages (linked).
  producer_actor sender;
  std::vector<transaction_worker_actor> executors;
  /// Local transactions handed to each executor and not answered.
  std::vector<size_t> executor_load;
  transaction_worker_actor checker;
  /// Check-backs handed to the checker and not answered.
  size_t checks_waiting = 0;
  std::map<uint64_t, pending_transaction> pending;
  uint64_t next_id = 0;
  bool stopping = false;
  /// The send loop was asked to shut down.
  bool stop_sent = false;
  std::vector<caf::typed_response_promise<caf::ok_atom>> stop_waiters;
  // Counters for the dump.
  int64_t sent = 0;
  int64_t send_failed = 0;
  int64_t committed = 0;
  int64_t rolled_back = 0;
  int64_t unknown = 0;
  int64_t ends_sent = 0;
  int64_t ends_failed = 0;
  int64_t checks = 0;
  int64_t checks_answered = 0;
  int64_t checks_dropped = 0;
  int64_t checks_undecodable = 0;
  std::string last_error;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Spawned by spawn_transaction_producer_actor; tests spawn it on a client
/// instance made of stub actors.
transaction_producer_actor::behavior_type transaction_producer_main(
  transaction_producer_actor::stateful_pointer<transaction_producer_state> self,
  transaction_producer_config cfg, client_instance inst,
  std::shared_ptr<transaction_listener> listener);

/// Spawns a transaction producer actor in `sys` on the process's client
/// instance; invalid_parameter for a bad group name or no listener.
caf::expected<transaction_producer_actor> spawn_transaction_producer_actor(
  caf::actor_system& sys, const transaction_producer_config& cfg,
  std::shared_ptr<transaction_listener> listener);

/// Spawns one on a given client instance (tests build one from stubs).
caf::expected<transaction_producer_actor>
spawn_transaction_producer_actor(caf::actor_system& sys,
                                 const transaction_producer_config& cfg,
                                 std::shared_ptr<transaction_listener> listener,
                                 const client_instance& inst);

/// The blocking facade. Copies share one producer; when the last copy
/// goes it shuts the producer down (blocking, as `shutdown`).
class transaction_producer {
public:
  transaction_producer_actor handle() const;

  /// Sends `msg` as a half message, runs the listener's execute with
  /// `arg`, ends the transaction at the broker: the send result and the
  /// local state, or the send's error (the listener did not run).
  caf::expected<transaction_send_result>
  send_in_transaction(const client_message& msg, const std::string& arg = {});

  /// Waits for transactions on their way, unregisters the group, stops
  /// the actor and its workers.
  void shutdown();

  struct impl;

  explicit transaction_producer(std::shared_ptr<impl> ptr);

private:
  std::shared_ptr<impl> impl_;
};

/// Spawns a transaction producer and returns its facade.
caf::expected<transaction_producer>
spawn_transaction_producer(caf::actor_system& sys,
                           const transaction_producer_config& cfg,
                           std::shared_ptr<transaction_listener> listener);

/// Spawns one on a given client instance and returns its facade.
caf::expected<transaction_producer>
spawn_transaction_producer(caf::actor_system& sys,
                           const transaction_producer_config& cfg,
                           std::shared_ptr<transaction_listener> listener,
                           const client_instance& inst);

} // namespace rmq
