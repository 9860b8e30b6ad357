// Remembers the result of every message with a unique id stored within the
// last `window`, so a resent copy is answered with the original result
// instead of being stored twice. Owned by the writer. Its clock is the one
// `message_store::put` and `open` get as `now_ms`: the wall clock in the node,
// since recovery refills it from store timestamps.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "messages/store.hpp"
#include "runtime/delay_levels.hpp"
#include "runtime/storage/message_record.hpp"

namespace rmq::storage {

/// The dedup key of a message: its topic, reconsume times and unique id.
/// A retry or dead-letter copy keeps the original's UNIQ_KEY (RocketMQ
/// does), and the retries of one message share a topic; their reconsume
/// times differ, so none is taken for a resend of another.
inline std::string dedup_key(std::string_view topic, int32_t reconsume_times,
                             std::string_view uniq) {
  auto times = std::to_string(reconsume_times);
  std::string key;
  key.reserve(topic.size() + times.size() + 2 + uniq.size());
  key.append(topic).append(1, '\x01').append(times).append(1, '\x01');
  key.append(uniq);
  return key;
}

/// The topic part of a dedup key. A scheduled message waits in
/// SCHEDULE_TOPIC_XXXX for its real topic: the key names both, so the
/// retry copies of one message for two groups (same UNIQ_KEY, same
/// reconsume times) are not taken for one another, and a due copy in its
/// real topic is not taken for a resend of its scheduled one.
inline std::string dedup_topic(std::string_view topic,
                               std::string_view properties) {
  std::string result{topic};
  if (topic == schedule_topic)
    result.append(1, '\x01').append(
      find_property(properties, property_real_topic));
  return result;
}

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

  /// Returns the stored result for `key`, or null. `now_ms` is the
  /// caller's clock (the wall clock in the node; tests pass their own).
  const put_result* find(std::string_view key, int64_t now_ms);

  /// Remembers `res` for `key` as stored at `now_ms`, unless `key` is
  /// already there (the first result stays the answer).
  void insert(std::string_view key, const put_result& res, int64_t now_ms);

  size_t size() const {
    return entries_.size();
  }

  /// Forgets every entry (the log was cut below their offsets).
  void clear() {
    entries_.clear();
    order_.clear();
  }

private:
  void expire(int64_t now_ms);

  std::chrono::milliseconds window_;
  size_t max_entries_;
  std::unordered_map<std::string, put_result> entries_;
  // Insertion times and keys, oldest first. The keys point into the map's
  // nodes (stable until erased): one copy of each id, not two.
  std::deque<std::pair<int64_t, const std::string*>> order_;
};

} // namespace rmq::storage
