// The transaction check service (RocketMQ TransactionalMessageCheckService
// with TransactionalMessageServiceImpl#check): keeps the unresolved half
// messages of RMQ_SYS_TRANS_HALF_TOPIC in memory, rebuilt from the store
// (the half queue and the op records of RMQ_SYS_TRANS_OP_HALF_TOPIC, read
// from the progress its file keeps), and every `check_interval` asks a
// live producer of each half message's group how the transaction ended:
// it re-puts the half with TRANSACTION_CHECK_TIMES + 1 (so the count
// survives a restart) and sends check_transaction_state to the producer's
// channel. A half checked `check_max` times is moved to
// TRANS_CHECK_MAX_TIME_TOPIC and resolved with an op record. Writes its
// file synchronously: spawn it detached. See docs/transactions.md,
// "Broker side".
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/broker/client_manager.hpp"
#include "messages/broker/transaction_service.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/broker/pending_halves.hpp"
#include "runtime/broker/transaction_offsets_file.hpp"
#include "runtime/common/wall_clock.hpp"

namespace rmq {

struct transaction_check_service_options {
  /// The progress file (`transaction_offsets_json_path(store_root)`).
  std::string offsets_path;
  /// Named in every check-back: where the producer answers.
  std::string broker_name = "broker-a";
  std::string broker_addr = "127.0.0.1:10921";
  /// The store host, for the offsetMsgId of a check-back.
  uint32_t store_ip = 0x7F000001;
  uint32_t store_port = 10921;
  /// transactionCheckInterval.
  caf::timespan check_interval = std::chrono::seconds{30};
  /// transactionTimeOut: younger half messages are not checked (unless
  /// CHECK_IMMUNITY_TIME_IN_SECONDS says otherwise).
  int64_t transaction_timeout_ms = 6000;
  /// transactionCheckMax: checks before a half message is discarded.
  int32_t check_max = 15;
  /// fileReservedTime (72 h): older half messages are discarded unchecked
  /// (RocketMQ needSkip), their records may be gone.
  int64_t file_reserved_ms = int64_t{72} * 3600 * 1000;
  /// Born and store times are wall-clock times.
  rmq::wall_clock wall_clock;
  /// How long the queue service, the commit log and the client manager may
  /// take.
  caf::timespan request_timeout = std::chrono::seconds{10};
  /// Records per read of the half and op queues.
  int32_t batch = 32;
  /// A slave keeps the pending set (for brokerStatus) but checks nothing:
  /// its store takes no puts (RocketMQ starts the check service on the
  /// master only).
  bool slave = false;
};

struct transaction_check_service_state {
  transaction_check_service_options options;
  queue_service_actor queue_service;
  commit_log_writer_actor commit_log;
  client_manager_actor clients;
  /// The unresolved half messages and the read progress of both queues.
  pending_halves halves;
  int64_t half_max = 0;
  int64_t op_max = 0;
  /// What the file holds.
  int64_t saved_half = -1;
  int64_t saved_op = -1;
  bool scanning = false;
  bool scan_again = false;
  /// The first scan after the start is done: the set is complete.
  bool rebuilt = false;
  std::vector<std::function<void()>> after_scan;
  bool checking = false;
  std::vector<caf::typed_response_promise<transaction_progress>> waiters;
  uint64_t timer = 0;

  int64_t rounds = 0;
  int64_t checks = 0;
  int64_t discarded = 0;
  /// Checks skipped because no producer of the group was online.
  int64_t no_producer = 0;
  int64_t failures = 0;
  int64_t saves = 0;
  int64_t save_failures = 0;

  int64_t now_ms() const;

  transaction_progress progress() const;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

/// Loads the progress file and rebuilds the pending half messages from the
/// store; the first check round is `check_interval` after the start. The
/// broker node subscribes it to the queue service's arrivals for both topics.
/// Quits with io_error if the file exists but cannot be read.
transaction_check_service_actor::behavior_type
transaction_check_service(transaction_check_service_actor::stateful_pointer<
                            transaction_check_service_state>
                            self,
                          transaction_check_service_options options,
                          queue_service_actor queue_service,
                          commit_log_writer_actor commit_log,
                          client_manager_actor clients);

} // namespace rmq
