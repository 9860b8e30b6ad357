#include "runtime/storage/dedup_table.hpp"

#include <algorithm>
#include <functional>
#include <new>

#include <sys/mman.h>

#include "runtime/message/log_format.hpp"

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

void dedup_table::slot_array::zero() {
  if (bytes_ > 0)
    ::madvise(data_, bytes_, MADV_DONTNEED);
}

namespace {

// A key's home slot comes from the low bits of its mix, its fingerprint
// from the high ones.
uint32_t fingerprint_of(uint64_t h) {
  return static_cast<uint32_t>(h >> 32);
}

} // namespace

size_t dedup_table::generation::probe(uint64_t key, uint64_t h) const {
  auto fp = fingerprint_of(h);
  auto mask = slots.size() - 1;
  auto i = static_cast<size_t>(h) & mask;
  for (; slots[i].index != 0; i = (i + 1) & mask)
    if (slots[i].fingerprint == fp && entries[slots[i].index - 1].key == key)
      break;
  return i;
}

int64_t dedup_table::generation::find(uint64_t key, uint64_t h) const {
  if (slots.size() == 0)
    return -1;
  auto& s = slots[probe(key, h)];
  return static_cast<int64_t>(s.index) - 1;
}

void dedup_table::generation::prefetch(uint64_t h) const {
  if (slots.size() > 0)
    __builtin_prefetch(&slots[static_cast<size_t>(h) & (slots.size() - 1)]);
}

void dedup_table::generation::place(uint64_t h, uint32_t index) {
  auto mask = slots.size() - 1;
  auto i = static_cast<size_t>(h) & mask;
  while (slots[i].index != 0)
    i = (i + 1) & mask;
  slots[i] = slot{fingerprint_of(h), index};
}

void dedup_table::generation::add(uint64_t key, uint64_t h, size_t free,
                                  int64_t phys_offset, int64_t time_ms) {
  entries.push_back(entry{key, phys_offset, time_ms});
  auto index = static_cast<uint32_t>(entries.size());
  if (entries.size() * 2 <= slots.size()) {
    slots[free] = slot{fingerprint_of(h), index};
    return;
  }
  // Rebuilt from the entries, this one included: a slot holds no whole
  // key.
  slots = slot_array{slots.size() == 0 ? 1024 : slots.size() * 2};
  for (size_t i = 0; i < entries.size(); ++i)
    place(mix(entries[i].key), static_cast<uint32_t>(i + 1));
}

void dedup_table::generation::reset() {
  // Both keep their room: the next generation grows as large.
  slots.zero();
  entries.clear();
}

size_t dedup_table::first_unexpired(const generation& g, int64_t now_ms) const {
  // Entry times grow with their index (insert keeps them in order).
  auto i = std::partition_point(g.entries.begin(), g.entries.end(),
                                [&](const entry& e) {
                                  return e.time_ms + window_.count() < now_ms;
                                });
  return static_cast<size_t>(i - g.entries.begin());
}

size_t dedup_table::first_in_bound() const {
  auto n = previous_.entries.size() + current_.entries.size();
  return n > max_entries_ ? n - max_entries_ : 0;
}

const dedup_table::entry* dedup_table::live_previous(uint64_t key, uint64_t h,
                                                     int64_t now_ms) const {
  auto i = previous_.find(key, h);
  if (i < 0 || static_cast<size_t>(i) < first_in_bound())
    return nullptr;
  auto& e = previous_.entries[static_cast<size_t>(i)];
  return e.time_ms + window_.count() >= now_ms ? &e : nullptr;
}

const dedup_table::entry* dedup_table::live(uint64_t key, uint64_t h,
                                            int64_t now_ms) const {
  // A key is in `current_` once at most, and newer there than in
  // `previous_`: if that copy expired, an older one has too.
  if (auto i = current_.find(key, h); i >= 0) {
    auto& e = current_.entries[static_cast<size_t>(i)];
    return e.time_ms + window_.count() >= now_ms ? &e : nullptr;
  }
  return live_previous(key, h, now_ms);
}

void dedup_table::prefetch(uint64_t key) const {
  auto h = mix(key);
  current_.prefetch(h);
  previous_.prefetch(h);
}

size_t dedup_table::size() const {
  auto cur = current_.entries.size() - first_unexpired(current_, now_ms_);
  auto from = std::max(first_in_bound(), first_unexpired(previous_, now_ms_));
  auto prev = previous_.entries.size()
              - std::min(from, previous_.entries.size());
  return cur + prev;
}

void dedup_table::clear() {
  current_ = generation{};
  previous_ = generation{};
}

std::optional<int64_t> dedup_table::find(uint64_t key, int64_t now_ms) {
  if (!enabled())
    return std::nullopt;
  now_ms_ = std::max(now_ms_, now_ms);
  if (auto e = live(key, mix(key), now_ms))
    return e->phys_offset;
  return std::nullopt;
}

void dedup_table::insert(uint64_t key, int64_t phys_offset, int64_t now_ms) {
  if (!enabled())
    return;
  // Entries expire from the front: keep the times in order even if the
  // clock stepped back.
  if (!current_.entries.empty())
    now_ms = std::max(now_ms, current_.entries.back().time_ms);
  now_ms_ = std::max(now_ms_, now_ms);
  // Rotated first, so that no id left in `current_` is dead: a key found
  // there is live.
  auto& cur = current_.entries;
  if (cur.size() >= max_entries_
      || (!cur.empty() && cur.front().time_ms + window_.count() < now_ms)) {
    std::swap(current_, previous_);
    current_.reset();
  }
  auto h = mix(key);
  // One probe of `current_` finds the key or the slot it goes into.
  size_t free = 0;
  if (current_.slots.size() > 0) {
    free = current_.probe(key, h);
    if (current_.slots[free].index != 0)
      return;
  }
  if (live_previous(key, h, now_ms) != nullptr)
    return;
  current_.add(key, h, free, phys_offset, now_ms);
}

} // namespace rmq::storage
