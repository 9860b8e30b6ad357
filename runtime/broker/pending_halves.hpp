// The unresolved half messages of a broker, as the transaction check
// service learns them by reading the half queue (RMQ_SYS_TRANS_HALF_TOPIC)
// and the op queue (RMQ_SYS_TRANS_OP_HALF_TOPIC) in order. RocketMQ's
// TransactionalMessageServiceImpl#check rebuilds the same knowledge on
// every check (removeMap, opMsgMap); here it is kept between rounds, with
// the progress a restart reads again from. Plain bookkeeping, no I/O: the
// actor (actors/broker/transaction/transaction_check_service.*) reads the
// queues and writes the copies.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "messages/broker/transaction_service.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

/// One unresolved half message (its newest copy).
struct pending_half {
  int64_t queue_offset = 0;
  int64_t phys_offset = 0;
  int64_t born_timestamp = 0;
  int64_t store_timestamp = 0;
  /// UNIQ_KEY (else the transaction id): copies share it.
  std::string key;
  std::string producer_group;
  int32_t check_times = 0;
  int64_t immunity_ms = 0;
};

/// The entry of the half message `rec` read at half queue offset
/// `queue_offset` (its check count and immunity from its properties).
pending_half pending_half_of(const record_view& rec, int64_t queue_offset,
                             int64_t transaction_timeout_ms);

class pending_halves {
public:
  using map_type = std::map<int64_t, pending_half>;

  /// Starts reading at these offsets (a restart: the saved progress).
  void start_at(int64_t half_offset, int64_t op_offset);

  /// The next half and op queue offsets to read.
  int64_t half_cursor() const {
    return half_cursor_;
  }
  int64_t op_cursor() const {
    return op_cursor_;
  }

  /// The half read at `e.queue_offset`; the half cursor moves past it. It
  /// becomes pending unless an op record resolved it first or a newer copy
  /// of its transaction is pending (then it is superseded, as an older
  /// pending copy is by it).
  void add_half(pending_half e);

  /// The op record at op queue offset `q`: it resolves the half offsets
  /// `refs` and the transaction `key` (empty: none), whichever copy is
  /// pending. The op cursor moves past it.
  void add_op(int64_t q, const std::vector<int64_t>& refs,
              const std::string& key);

  /// A half or op record at `q` that cannot be read: skipped.
  void skip_half(int64_t q);
  void skip_op(int64_t q);

  /// Retention removed the half queue below `min_offset`: what was pending
  /// there is gone.
  void half_queue_starts_at(int64_t min_offset);
  void op_queue_starts_at(int64_t min_offset);

  /// Moves a cursor to `offset`: past a hole in the queue, or back to the
  /// queue's end when it is shorter than the cursor.
  void half_jump_to(int64_t offset);
  void op_jump_to(int64_t offset);

  /// Forgets the half at `q` (discarded after too many checks).
  void erase(int64_t q);

  /// A check copied the half at `old_q` to `copy.queue_offset`. Returns
  /// false if `old_q` was resolved meanwhile: then so is the copy.
  bool replace(int64_t old_q, pending_half copy);

  /// Whether the transaction `key` with its half at `q` is resolved: no
  /// copy pending, and below the cursor not pending or above it resolved
  /// by an op record read ahead.
  bool resolved(const std::string& key, int64_t q) const;

  /// The first half offset not yet resolved or superseded.
  int64_t half_progress() const;

  /// The first op offset a restart must read again.
  int64_t op_progress() const;

  /// Drops op records no longer needed for the op progress.
  void trim();

  /// Pending halves by group, oldest store timestamp first seen.
  std::vector<transaction_group_pending> groups() const;

  const map_type& entries() const {
    return pending_;
  }
  const pending_half* find(int64_t q) const;
  size_t size() const {
    return pending_.size();
  }
  size_t resolved_ahead() const {
    return resolved_ahead_.size();
  }
  size_t op_refs() const {
    return op_refs_.size();
  }
  /// Half messages dropped for a newer copy of their transaction.
  int64_t superseded() const {
    return superseded_;
  }

private:
  void erase_entry(map_type::iterator i);
  void resolve_offset(int64_t q);
  void resolve_key(const std::string& key);

  int64_t half_cursor_ = 0;
  int64_t op_cursor_ = 0;
  /// By half queue offset, and the newest copy of each transaction.
  map_type pending_;
  std::unordered_map<std::string, int64_t> by_key_;
  /// Half offsets resolved by op records before the half was read.
  std::set<int64_t> resolved_ahead_;
  /// Op records read that may still matter after a restart: (op queue
  /// offset, largest half offset named); the first is the op progress.
  std::deque<std::pair<int64_t, int64_t>> op_refs_;
  int64_t superseded_ = 0;
};

} // namespace rmq
