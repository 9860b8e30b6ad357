// Remembers where every message with a unique id stored within the last
// `window` is, so a resent copy is answered with the original's result
// (read from its record) instead of being stored twice. Owned by the writer. Its clock is the one
// `message_store::put` and `open` get as `now_ms`: the wall clock in the node,
// since recovery refills it from store timestamps.
//
// Keyed by a 64-bit hash of the dedup key, not the key itself: a probe
// into a flat table per generation and no string per message (the string-keyed map was a
// quarter of the broker's CPU in the batch path, docs/benchmarks.md). A
// hit is only a candidate: the store compares it with the record at its
// offset (`message_store::original`), so a hash collision never drops a
// message.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/store/store.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_record.hpp"

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
  /// `max_entries` bounds the table: the oldest ids go first past it
  /// (zero disables it too).
  explicit dedup_table(std::chrono::milliseconds window,
                       size_t max_entries = SIZE_MAX)
    // An entry's index in its generation is 32 bits.
    : window_(window), max_entries_(std::min<size_t>(max_entries, 1u << 31)) {
    // nop
  }

  bool enabled() const {
    return window_.count() > 0 && max_entries_ > 0;
  }

  /// Returns the commit-log offset of the record stored for `key` (a
  /// `dedup_hash`), if any; the rest of its put result is in the record.
  /// `now_ms` is the caller's clock (the wall clock in the node; tests
  /// pass their own).
  std::optional<int64_t> find(uint64_t key, int64_t now_ms);

  /// Remembers the record at `phys_offset` for `key` as stored at
  /// `now_ms`, unless `key` is already there (the first stays the answer).
  void insert(uint64_t key, int64_t phys_offset, int64_t now_ms);

  /// Starts loading the slots `key` probes first: a batch prefetches all
  /// its keys before its first lookup, so their cache misses overlap.
  void prefetch(uint64_t key) const;

  /// The ids a lookup at the latest time seen would still find.
  size_t size() const;

  /// Forgets every entry (the log was cut below their offsets).
  void clear();

private:
  // One slot of a generation's open-addressing table: a fingerprint of
  // the key and the entry's index + 1 (0 marks a free slot).
  struct slot {
    uint32_t fingerprint = 0;
    uint32_t index = 0;
  };

  // An id, in insertion order (so also in time order).
  struct entry {
    uint64_t key;
    int64_t phys_offset;
    int64_t time_ms;
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
    /// All slots free again; the pages are zeroed lazily on next touch.
    void zero();

  private:
    slot* data_ = nullptr;
    size_t size_ = 0;
    size_t bytes_ = 0; // mapped, 0 when empty
  };

  // The ids of one stretch of time: entries never leave one singly, a
  // whole generation is dropped at once (docs/storage.md, "Dedup").
  struct generation {
    slot_array slots; // at most half full, a power-of-two size
    std::vector<entry> entries;

    // Each takes `h`, the key's mix (computed once per call of the table).

    // The slot of `key`'s entry, or the free slot ending its probe run
    // (index 0); the table is not empty.
    size_t probe(uint64_t key, uint64_t h) const;
    // The index of `key`'s entry, or -1.
    int64_t find(uint64_t key, uint64_t h) const;
    void prefetch(uint64_t h) const;
    // Adds `key`, which is not there; `free` is its probe's free slot.
    void add(uint64_t key, uint64_t h, size_t free, int64_t phys_offset,
             int64_t time_ms);
    void reset();

  private:
    void place(uint64_t h, uint32_t index);
  };

  // The entry for `key` a lookup at `now_ms` finds, or nullptr.
  const entry* live(uint64_t key, uint64_t h, int64_t now_ms) const;
  // The same in the previous generation only.
  const entry* live_previous(uint64_t key, uint64_t h, int64_t now_ms) const;

  // The first index of `g` whose entry has not expired at `now_ms`.
  size_t first_unexpired(const generation& g, int64_t now_ms) const;

  // The first index of the previous generation still within the bound.
  size_t first_in_bound() const;

  std::chrono::milliseconds window_;
  size_t max_entries_;
  // New ids go into `current_`; `previous_` holds the generation before.
  // `current_` is rotated out once it holds `max_entries_` ids (every id
  // of `previous_` is then past the bound) or once its first id expired
  // (every id of `previous_` then has too).
  generation current_;
  generation previous_;
  int64_t now_ms_ = INT64_MIN; // the latest time seen
};

} // namespace rmq::storage
