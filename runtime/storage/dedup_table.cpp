#include "runtime/storage/dedup_table.hpp"

#include <algorithm>
#include <functional>
#include <new>

#include <sys/mman.h>

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

dedup_table::slot_array::slot_array(size_t n) {
  constexpr size_t huge = 2 * 1024 * 1024;
  bytes_ = (n * sizeof(slot) + huge - 1) / huge * huge;
  // Mapped zeroed (key 0: every slot free), aligned to a huge page.
  auto* p = ::mmap(nullptr, bytes_ + huge, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::bad_alloc{};
  auto addr = reinterpret_cast<uintptr_t>(p);
  auto aligned = (addr + huge - 1) / huge * huge;
  // Give back the slack before and after the aligned range.
  if (aligned > addr)
    ::munmap(p, aligned - addr);
  if (auto tail = addr + bytes_ + huge - (aligned + bytes_); tail > 0)
    ::munmap(reinterpret_cast<void*>(aligned + bytes_), tail);
  // A hint: without transparent huge pages the table still works.
  ::madvise(reinterpret_cast<void*>(aligned), bytes_, MADV_HUGEPAGE);
  data_ = reinterpret_cast<slot*>(aligned);
  size_ = n;
}

dedup_table::slot_array::~slot_array() {
  if (bytes_ > 0)
    ::munmap(data_, bytes_);
}

dedup_table::slot_array::slot_array(slot_array&& other) noexcept
  : data_(other.data_), size_(other.size_), bytes_(other.bytes_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.bytes_ = 0;
}

dedup_table::slot_array&
dedup_table::slot_array::operator=(slot_array&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

size_t dedup_table::home(uint64_t key) const {
  return static_cast<size_t>(mix(key)) & (slots_.size() - 1);
}

size_t dedup_table::probe(uint64_t key) const {
  auto mask = slots_.size() - 1;
  auto i = home(key);
  while (slots_[i].key != 0 && slots_[i].key != key)
    i = (i + 1) & mask;
  return i;
}

void dedup_table::prefetch(uint64_t key) const {
  if (slots_.size() > 0)
    __builtin_prefetch(&slots_[home(nonzero(key))]);
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
    auto h = home(slots_[j].key);
    // Move j into the hole i unless its home lies in (i, j] (cyclically).
    bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
    if (stays)
      continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = slot{};
  --size_;
}

void dedup_table::evict_oldest() {
  erase(order_.front().second);
  order_.pop_front();
  constexpr size_t ahead = 16;
  if (order_.size() > ahead)
    __builtin_prefetch(&slots_[home(order_[ahead].second)]);
}

void dedup_table::grow() {
  slot_array old{slots_.size() == 0 ? 1024 : slots_.size() * 2};
  std::swap(old, slots_);
  for (size_t i = 0; i < old.size(); ++i)
    if (old[i].key != 0)
      slots_[probe(old[i].key)] = old[i];
}

void dedup_table::clear() {
  slots_ = slot_array{};
  size_ = 0;
  order_.clear();
}

void dedup_table::expire(int64_t now_ms) {
  while (!order_.empty() && order_.front().first + window_.count() < now_ms)
    evict_oldest();
}

std::optional<int64_t> dedup_table::find(uint64_t key, int64_t now_ms) {
  if (!enabled())
    return std::nullopt;
  expire(now_ms);
  if (size_ == 0)
    return std::nullopt;
  auto& s = slots_[probe(nonzero(key))];
  if (s.key == 0)
    return std::nullopt;
  return s.phys_offset;
}

void dedup_table::insert(uint64_t key, int64_t phys_offset, int64_t now_ms) {
  if (!enabled())
    return;
  key = nonzero(key);
  if ((size_ + 1) * 2 > slots_.size())
    grow();
  auto& s = slots_[probe(key)];
  if (s.key != 0)
    return;
  s = slot{key, phys_offset};
  ++size_;
  // Entries expire from the front: keep the times in order even if the
  // clock stepped back.
  if (!order_.empty())
    now_ms = std::max(now_ms, order_.back().first);
  order_.emplace_back(now_ms, key);
  while (order_.size() > max_entries_)
    evict_oldest();
}

} // namespace rmq::storage
