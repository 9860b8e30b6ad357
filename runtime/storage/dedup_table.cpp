#include "runtime/storage/dedup_table.hpp"

#include <algorithm>
#include <functional>

#include "runtime/storage/log_format.hpp"

namespace rmq::storage {

namespace {

// splitmix64's finalizer: spreads every input bit over the word.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t combine(uint64_t h, uint64_t v) {
  return mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

uint64_t hash_of(std::string_view x) {
  return std::hash<std::string_view>{}(x);
}

// The transaction check service re-puts a half message with the same
// UNIQ_KEY and one more check (docs/transactions.md): each copy is its own
// message, the producer's resend of the half is not.
constexpr std::string_view trans_half_topic = "RMQ_SYS_TRANS_HALF_TOPIC";
constexpr std::string_view property_check_times = "TRANSACTION_CHECK_TIMES";

} // namespace

uint64_t dedup_hash(std::string_view topic, std::string_view properties,
                    int32_t reconsume_times, std::string_view uniq) {
  auto h = hash_of(topic);
  if (topic == schedule_topic)
    h = combine(h, hash_of(find_property(properties, property_real_topic)));
  if (topic == trans_half_topic)
    h = combine(h, hash_of(find_property(properties, property_check_times)));
  h = combine(h, static_cast<uint32_t>(reconsume_times));
  return combine(h, hash_of(uniq));
}

bool same_dedup_key(const record_view& rec, std::string_view topic,
                    std::string_view properties, int32_t reconsume_times,
                    std::string_view uniq) {
  if (rec.topic != topic || rec.reconsume_times != reconsume_times
      || find_property(rec.properties, property_uniq_key) != uniq)
    return false;
  if (topic == trans_half_topic)
    return find_property(rec.properties, property_check_times)
           == find_property(properties, property_check_times);
  return topic != schedule_topic
         || find_property(rec.properties, property_real_topic)
              == find_property(properties, property_real_topic);
}

size_t dedup_table::probe(uint64_t key) const {
  auto mask = slots_.size() - 1;
  auto i = static_cast<size_t>(mix(key)) & mask;
  while (slots_[i].key != 0 && slots_[i].key != key)
    i = (i + 1) & mask;
  return i;
}

void dedup_table::erase(uint64_t key) {
  auto mask = slots_.size() - 1;
  auto i = probe(key);
  if (slots_[i].key == 0)
    return;
  // Backward-shift deletion: pull later members of the run into the hole
  // so every key stays reachable from its home slot without tombstones.
  auto j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (slots_[j].key == 0)
      break;
    auto home = static_cast<size_t>(mix(slots_[j].key)) & mask;
    // Move j into the hole i unless its home lies in (i, j] (cyclically).
    bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays)
      continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = slot{};
  --size_;
}

void dedup_table::grow() {
  std::vector<slot> old;
  old.swap(slots_);
  slots_.resize(old.empty() ? 1024 : old.size() * 2);
  for (auto& s : old)
    if (s.key != 0)
      slots_[probe(s.key)] = s;
}

void dedup_table::clear() {
  slots_.clear();
  size_ = 0;
  order_.clear();
}

void dedup_table::expire(int64_t now_ms) {
  while (!order_.empty() && order_.front().first + window_.count() < now_ms) {
    erase(order_.front().second);
    order_.pop_front();
  }
}

std::optional<put_result> dedup_table::find(uint64_t key, int64_t now_ms) {
  if (!enabled())
    return std::nullopt;
  expire(now_ms);
  if (size_ == 0)
    return std::nullopt;
  auto& s = slots_[probe(nonzero(key))];
  if (s.key == 0)
    return std::nullopt;
  put_result res;
  res.queue_offset = s.queue_offset;
  res.phys_offset = s.phys_offset;
  res.size = s.size;
  res.store_timestamp = s.store_timestamp;
  return res;
}

void dedup_table::insert(uint64_t key, const put_result& res, int64_t now_ms) {
  if (!enabled())
    return;
  key = nonzero(key);
  if ((size_ + 1) * 2 > slots_.size())
    grow();
  auto& s = slots_[probe(key)];
  if (s.key != 0)
    return;
  s = slot{key, res.queue_offset, res.phys_offset, res.store_timestamp,
           res.size};
  ++size_;
  // Entries expire from the front: keep the times in order even if the
  // clock stepped back.
  if (!order_.empty())
    now_ms = std::max(now_ms, order_.back().first);
  order_.emplace_back(now_ms, key);
  while (order_.size() > max_entries_) {
    erase(order_.front().second);
    order_.pop_front();
  }
}

} // namespace rmq::storage
