#include "runtime/storage/dedup_table.hpp"

#include <algorithm>

namespace rmq::storage {

void dedup_table::expire(int64_t now_ms) {
  while (!order_.empty() && order_.front().first + window_.count() < now_ms) {
    entries_.erase(entries_.find(*order_.front().second));
    order_.pop_front();
  }
}

const put_result* dedup_table::find(std::string_view key, int64_t now_ms) {
  if (!enabled())
    return nullptr;
  expire(now_ms);
  auto i = entries_.find(std::string{key});
  return i == entries_.end() ? nullptr : &i->second;
}

void dedup_table::insert(std::string_view key, const put_result& res,
                         int64_t now_ms) {
  if (!enabled())
    return;
  auto [i, added] = entries_.emplace(std::string{key}, res);
  if (!added)
    return;
  // Entries expire from the front: keep the times in order even if the
  // clock stepped back.
  if (!order_.empty())
    now_ms = std::max(now_ms, order_.back().first);
  order_.emplace_back(now_ms, &i->first);
  while (order_.size() > max_entries_) {
    entries_.erase(entries_.find(*order_.front().second));
    order_.pop_front();
  }
}

} // namespace rmq::storage
