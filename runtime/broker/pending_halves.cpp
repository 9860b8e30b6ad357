#include "runtime/broker/pending_halves.hpp"

#include <algorithm>

#include "runtime/broker/transaction_rules.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"

namespace rmq {

namespace {

// UNIQ_KEY, else the transaction id, else the record's place.
std::string key_of(const record_view& rec) {
  auto key = find_property(rec.properties, property_uniq_key);
  if (key.empty())
    key = find_property(rec.properties, property_transaction_id);
  if (key.empty())
    return "@" + std::to_string(rec.phys_offset);
  return std::string{key};
}

} // namespace

pending_half pending_half_of(const record_view& rec, int64_t queue_offset,
                             int64_t transaction_timeout_ms) {
  pending_half e;
  e.queue_offset = queue_offset;
  e.phys_offset = rec.phys_offset;
  e.born_timestamp = rec.born_timestamp;
  e.store_timestamp = rec.store_timestamp;
  e.key = key_of(rec);
  e.producer_group
    = std::string{find_property(rec.properties, property_producer_group)};
  e.check_times = stored_check_times(rec.properties);
  e.immunity_ms = check_immunity_ms(rec.properties, transaction_timeout_ms);
  return e;
}

void pending_halves::start_at(int64_t half_offset, int64_t op_offset) {
  half_cursor_ = half_offset;
  op_cursor_ = op_offset;
}

void pending_halves::erase_entry(map_type::iterator i) {
  auto k = by_key_.find(i->second.key);
  if (k != by_key_.end() && k->second == i->first)
    by_key_.erase(k);
  pending_.erase(i);
}

void pending_halves::resolve_offset(int64_t q) {
  if (auto i = pending_.find(q); i != pending_.end()) {
    erase_entry(i);
    return;
  }
  if (q >= half_cursor_)
    resolved_ahead_.insert(q);
}

// An op record resolves the transaction, whichever copy it names: the
// producer may answer the offsets of its send after a check copied it.
void pending_halves::resolve_key(const std::string& key) {
  auto k = by_key_.find(key);
  if (k == by_key_.end())
    return;
  auto q = k->second;
  by_key_.erase(k);
  pending_.erase(q);
}

void pending_halves::add_half(pending_half e) {
  auto q = e.queue_offset;
  half_cursor_ = std::max(half_cursor_, q + 1);
  if (resolved_ahead_.erase(q) > 0 || pending_.count(q) > 0)
    return;
  if (auto k = by_key_.find(e.key); k != by_key_.end()) {
    ++superseded_;
    if (k->second > q)
      return; // an older copy of a transaction whose newer copy is pending
    pending_.erase(k->second);
  }
  by_key_[e.key] = q;
  pending_.emplace(q, std::move(e));
}

void pending_halves::add_op(int64_t q, const std::vector<int64_t>& refs,
                            const std::string& key) {
  int64_t max_ref = -1;
  for (auto ref : refs) {
    resolve_offset(ref);
    max_ref = std::max(max_ref, ref);
  }
  if (!key.empty())
    resolve_key(key);
  op_refs_.emplace_back(q, max_ref);
  op_cursor_ = std::max(op_cursor_, q + 1);
}

void pending_halves::skip_half(int64_t q) {
  half_cursor_ = std::max(half_cursor_, q + 1);
}

void pending_halves::skip_op(int64_t q) {
  op_cursor_ = std::max(op_cursor_, q + 1);
}

void pending_halves::half_queue_starts_at(int64_t min_offset) {
  while (!pending_.empty() && pending_.begin()->first < min_offset)
    erase_entry(pending_.begin());
  half_cursor_ = min_offset;
}

void pending_halves::op_queue_starts_at(int64_t min_offset) {
  op_cursor_ = min_offset;
}

void pending_halves::half_jump_to(int64_t offset) {
  half_cursor_ = offset;
}

void pending_halves::op_jump_to(int64_t offset) {
  op_cursor_ = offset;
}

void pending_halves::erase(int64_t q) {
  if (auto i = pending_.find(q); i != pending_.end())
    erase_entry(i);
}

bool pending_halves::replace(int64_t old_q, pending_half copy) {
  auto i = pending_.find(old_q);
  if (i == pending_.end()) {
    if (copy.queue_offset >= half_cursor_)
      resolved_ahead_.insert(copy.queue_offset);
    return false;
  }
  erase_entry(i);
  by_key_[copy.key] = copy.queue_offset;
  auto q = copy.queue_offset;
  pending_.emplace(q, std::move(copy));
  return true;
}

bool pending_halves::resolved(const std::string& key, int64_t q) const {
  if (by_key_.count(key) > 0)
    return false; // a copy of it is pending
  // Below the cursor, a half that is not pending was resolved; above, only
  // an op record read ahead of its half says so.
  return q < half_cursor_ ? pending_.count(q) == 0
                          : resolved_ahead_.count(q) > 0;
}

int64_t pending_halves::half_progress() const {
  auto p = half_cursor_;
  if (!pending_.empty())
    p = std::min(p, pending_.begin()->first);
  return p;
}

int64_t pending_halves::op_progress() const {
  auto half = half_progress();
  // An op record naming only offsets below the half progress is not
  // needed again.
  for (auto& [op, max_ref] : op_refs_)
    if (max_ref >= half)
      return op;
  return op_cursor_;
}

void pending_halves::trim() {
  auto half = half_progress();
  while (!op_refs_.empty() && op_refs_.front().second < half)
    op_refs_.pop_front();
}

std::vector<transaction_group_pending> pending_halves::groups() const {
  std::map<std::string, transaction_group_pending> by_group;
  for (auto& kv : pending_) {
    auto& g = by_group[kv.second.producer_group];
    if (g.pending == 0 || kv.second.store_timestamp < g.oldest_store_timestamp)
      g.oldest_store_timestamp = kv.second.store_timestamp;
    g.producer_group = kv.second.producer_group;
    ++g.pending;
  }
  std::vector<transaction_group_pending> out;
  for (auto& kv : by_group)
    out.push_back(std::move(kv.second));
  return out;
}

const pending_half* pending_halves::find(int64_t q) const {
  auto i = pending_.find(q);
  return i == pending_.end() ? nullptr : &i->second;
}

} // namespace rmq
