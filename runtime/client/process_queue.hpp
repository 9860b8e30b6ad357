// The messages of one queue a consumer has pulled and not yet consumed
// (RocketMQ ProcessQueue), keyed by queue offset. It decides the offset to
// commit (never past an unprocessed message: delivery is at-least-once),
// when to stop pulling (flow control) and, in orderly mode, which batch is
// being consumed. Plain data: one consumer actor owns each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "messages/client/consumer.hpp"

namespace rmq {

/// When a queue stops being pulled (RocketMQ DefaultMQPushConsumer).
struct process_queue_limits {
  /// pullThresholdForQueue: more messages than this waiting.
  int64_t max_count = 1000;
  /// pullThresholdSizeForQueue (100 MiB): more body bytes than this.
  int64_t max_bytes = int64_t{100} * 1024 * 1024;
  /// consumeConcurrentlyMaxSpan: the smallest and largest waiting offsets
  /// further apart than this (concurrent mode only: one slow message must
  /// not let the rest run far ahead of the commit offset).
  int64_t max_span = 2000;
};

/// Why pulling pauses, in RocketMQ's order of checks.
enum class pause_reason {
  none,
  count,
  size,
  span,
};

/// RocketMQ REBALANCE_LOCK_MAX_LIVE_TIME: a lock not renewed for this long
/// is treated as lost.
constexpr int64_t lock_max_live_ns = int64_t{30} * 1000 * 1000 * 1000;

class process_queue {
public:
  /// Adds a pulled batch; a message whose offset is already held is
  /// skipped. Returns how many were new.
  size_t add(std::vector<received_message> batch);

  /// Concurrent mode: notes a pulled batch's offsets and body sizes
  /// without keeping the messages, which go to the workers with their
  /// batch (a second copy per message was a third of the consumer's
  /// allocations, docs/benchmarks.md). An offset already held is skipped.
  /// Returns how many were new.
  size_t track(const std::vector<received_message>& batch);

  /// Whether `offset` is in process (waiting, taken or tracked).
  bool holds(int64_t offset) const;

  /// Removes consumed messages, waiting or tracked (concurrent mode);
  /// unknown offsets are ignored. Returns commit_offset().
  std::optional<int64_t> remove(const std::vector<int64_t>& offsets);

  /// The offset to commit: the smallest offset still in process (waiting,
  /// taken or tracked), or the largest ever added + 1 when none is;
  /// nullopt before anything was added (RocketMQ: -1, leave the stored
  /// offset alone).
  std::optional<int64_t> commit_offset() const;

  /// Messages in process (waiting, taken or tracked) and their body
  /// bytes.
  size_t count() const {
    return count_;
  }
  int64_t bytes() const {
    return bytes_;
  }

  /// Largest minus smallest waiting or tracked offset; 0 when at most one
  /// is.
  int64_t max_span() const;

  /// Whether to stop pulling; `orderly` skips the span check (RocketMQ).
  pause_reason pause(const process_queue_limits& limits,
                     bool orderly = false) const;
  bool should_pause(const process_queue_limits& limits,
                    bool orderly = false) const {
    return pause(limits, orderly) != pause_reason::none;
  }

  /// The waiting messages, by offset (concurrent mode consumes from here).
  const std::map<int64_t, received_message>& waiting() const {
    return waiting_;
  }

  /// Set when the queue is no longer owned: its pull loop stops and its
  /// results are thrown away.
  bool dropped() const {
    return dropped_;
  }
  void set_dropped(bool value) {
    dropped_ = value;
  }

  /// Forgets every message and the largest offset (the queue was dropped
  /// or its offset reset): commit_offset() is nullopt again.
  void clear();

  // -- orderly mode -----------------------------------------------------------

  /// Takes up to `batch_size` messages with the smallest offsets for
  /// consuming (RocketMQ takeMessages); they stay in process until commit
  /// or rollback.
  std::vector<received_message> take(size_t batch_size);

  /// The taken batch was consumed: forgets it. Returns commit_offset()
  /// (RocketMQ returns the last taken + 1, which is the same when nothing
  /// was put back; this never passes a message put back).
  std::optional<int64_t> commit();

  /// Puts the whole taken batch back (RocketMQ rollback).
  void rollback();

  /// Puts some taken messages back to be consumed again, e.g. after
  /// SUSPEND_CURRENT_QUEUE_A_MOMENT (RocketMQ makeMessageToConsumeAgain).
  void consume_again(const std::vector<int64_t>& offsets);

  /// The batch being consumed.
  const std::map<int64_t, received_message>& taken() const {
    return taken_;
  }

  /// The broker lock of an orderly queue: held since the last renewal at
  /// `now_ns` (actor clock).
  bool locked() const {
    return locked_;
  }
  void set_locked(bool value, int64_t now_ns) {
    locked_ = value;
    if (value)
      last_lock_ns_ = now_ns;
  }
  /// Whether the lock was not renewed for `lock_max_live_ns`.
  bool lock_expired(int64_t now_ns) const {
    return now_ns - last_lock_ns_ > lock_max_live_ns;
  }

private:
  /// A tracked message: its offset, body bytes and whether it was
  /// consumed (a consumed one in the middle stays until those before it
  /// are consumed too).
  struct slot {
    int64_t offset;
    int64_t bytes;
    bool done;
  };

  /// Index of the first slot at or after `offset` (size() if none).
  size_t slot_index(int64_t offset) const;
  std::deque<slot>::const_iterator find_tracked(int64_t offset) const;
  /// Drops consumed slots at both ends: front and back are in process.
  void trim();

  std::map<int64_t, received_message> waiting_;
  /// By offset; pulls arrive in order, so a new slot goes to the back.
  std::deque<slot> tracked_;
  std::map<int64_t, received_message> taken_;
  size_t count_ = 0;
  int64_t bytes_ = 0;
  int64_t max_added_ = -1;
  bool dropped_ = false;
  bool locked_ = false;
  int64_t last_lock_ns_ = 0;
};

} // namespace rmq
