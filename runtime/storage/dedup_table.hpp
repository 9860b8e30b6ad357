// Remembers where every message with a unique id stored within the last
// `window` is, so a resent copy is answered with the original's result
// (read from its record) instead of being stored twice. Owned by the writer. Its clock is the one
// `message_store::put` and `open` get as `now_ms`: the wall clock in the node,
// since recovery refills it from store timestamps.
//
// Keyed by a 64-bit hash of the dedup key, not the key itself: one probe
// into a flat table and no string per message (the string-keyed map was a
// quarter of the broker's CPU in the batch path, docs/benchmarks.md). A
// hit is only a candidate: the store compares it with the record at its
// offset (`message_store::original`), so a hash collision never drops a
// message.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/store.hpp"
#include "runtime/delay_levels.hpp"
#include "runtime/storage/message_record.hpp"

namespace rmq::storage {

/// The dedup key of a message as a 64-bit hash: its topic, reconsume
/// times and unique id. A retry or dead-letter copy keeps the original's
/// UNIQ_KEY (RocketMQ does), and the retries of one message share a topic;
/// their reconsume times differ, so none is taken for a resend of another.
/// A scheduled message waits in SCHEDULE_TOPIC_XXXX for its real topic:
/// the key names both (`properties` gives REAL_TOPIC), so the retry copies
/// of one message for two groups (same UNIQ_KEY, same reconsume times)
/// are not taken for one another, and a due copy in its real topic is not
/// taken for a resend of its scheduled one. A half message in
/// RMQ_SYS_TRANS_HALF_TOPIC is keyed by its TRANSACTION_CHECK_TIMES too:
/// the check service's copies are stored, a resend of the half is not.
uint64_t dedup_hash(std::string_view topic, std::string_view properties,
                    int32_t reconsume_times, std::string_view uniq);

/// Whether the stored record `rec` has the dedup key of the message with
/// these fields (the check behind a hash hit).
bool same_dedup_key(const record_view& rec, std::string_view topic,
                    std::string_view properties, int32_t reconsume_times,
                    std::string_view uniq);

class dedup_table {
public:
  /// `window` of zero disables deduplication.
  /// `max_entries` bounds the table: the oldest ids go first past it.
  explicit dedup_table(std::chrono::milliseconds window,
                       size_t max_entries = SIZE_MAX)
    : window_(window), max_entries_(max_entries) {
    // nop
  }

  bool enabled() const {
    return window_.count() > 0;
  }

  /// Returns the commit-log offset of the record stored for `key` (a
  /// `dedup_hash`), if any; the rest of its put result is in the record.
  /// `now_ms` is the caller's clock (the wall clock in the node; tests
  /// pass their own).
  std::optional<int64_t> find(uint64_t key, int64_t now_ms);

  /// Remembers the record at `phys_offset` for `key` as stored at
  /// `now_ms`, unless `key` is already there (the first stays the answer).
  void insert(uint64_t key, int64_t phys_offset, int64_t now_ms);

  /// Starts loading the slot `key` probes first: a batch prefetches all
  /// its keys before its first lookup, so their cache misses overlap.
  void prefetch(uint64_t key) const;

  size_t size() const {
    return size_;
  }

  /// Forgets every entry (the log was cut below their offsets).
  void clear();

private:
  // One slot of the open-addressing table; key 0 marks a free slot.
  struct slot {
    uint64_t key = 0;
    int64_t phys_offset = 0;
  };

  // The slots, in huge pages where the kernel gives them: the table is
  // far larger than the caches and each lookup lands on a random slot, so
  // with 4 KiB pages nearly every one also missed the TLB.
  class slot_array {
  public:
    slot_array() = default;
    explicit slot_array(size_t n);
    ~slot_array();
    slot_array(const slot_array&) = delete;
    slot_array& operator=(const slot_array&) = delete;
    slot_array(slot_array&& other) noexcept;
    slot_array& operator=(slot_array&& other) noexcept;

    slot& operator[](size_t i) const {
      return data_[i];
    }
    size_t size() const {
      return size_;
    }

  private:
    slot* data_ = nullptr;
    size_t size_ = 0;
    size_t bytes_ = 0; // mapped, 0 when empty
  };

  static uint64_t nonzero(uint64_t key) {
    return key == 0 ? 1 : key;
  }

  size_t home(uint64_t key) const;

  // The slot holding `key`, or the free slot ending its probe run.
  size_t probe(uint64_t key) const;

  void erase(uint64_t key);

  // Drops the oldest entry and prefetches the slot of one that goes a
  // little later (entries go in insertion order, so it is known now).
  void evict_oldest();

  void grow();

  void expire(int64_t now_ms);

  std::chrono::milliseconds window_;
  size_t max_entries_;
  // Linear probing, at most half full; a power-of-two size.
  slot_array slots_;
  size_t size_ = 0;
  // Insertion times and keys, oldest first (each key once).
  std::deque<std::pair<int64_t, uint64_t>> order_;
};

} // namespace rmq::storage
