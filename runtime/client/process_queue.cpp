#include "runtime/client/process_queue.hpp"

#include <algorithm>
#include <climits>

namespace rmq {

namespace {

int64_t size_of(const received_message& msg) {
  return static_cast<int64_t>(msg.body.size());
}

} // namespace

size_t process_queue::add(std::vector<received_message> batch) {
  size_t added = 0;
  for (auto& msg : batch) {
    auto offset = msg.queue_offset;
    if (waiting_.count(offset) > 0 || taken_.count(offset) > 0)
      continue;
    // The largest offset ever seen, not the last one added: a batch that
    // arrives out of order must not pull the empty-queue offset back.
    max_added_ = std::max(max_added_, offset);
    bytes_ += size_of(msg);
    waiting_.emplace(offset, std::move(msg));
    ++count_;
    ++added;
  }
  return added;
}

size_t process_queue::slot_index(int64_t offset) const {
  if (tracked_.empty() || offset <= tracked_.front().offset)
    return 0;
  // The slots are sorted and, unless the broker filtered some out,
  // consecutive: a slot is mostly where its distance from the first says,
  // without a search.
  auto guess = static_cast<uint64_t>(offset - tracked_.front().offset);
  if (guess < tracked_.size() && tracked_[guess].offset == offset)
    return guess;
  auto i = std::lower_bound(tracked_.begin(), tracked_.end(), offset,
                            [](const slot& x, int64_t off) {
                              return x.offset < off;
                            });
  return static_cast<size_t>(i - tracked_.begin());
}

std::deque<process_queue::slot>::const_iterator
process_queue::find_tracked(int64_t offset) const {
  auto i = tracked_.begin() + static_cast<ptrdiff_t>(slot_index(offset));
  return i != tracked_.end() && i->offset == offset && !i->done
           ? i
           : tracked_.end();
}

bool process_queue::holds(int64_t offset) const {
  // A fresh pull's messages lie past everything ever added: no look-up.
  if (offset > max_added_)
    return false;
  return waiting_.count(offset) > 0 || taken_.count(offset) > 0
         || find_tracked(offset) != tracked_.end();
}

size_t process_queue::track(const std::vector<received_message>& batch) {
  size_t added = 0;
  for (auto& msg : batch) {
    auto offset = msg.queue_offset;
    if (holds(offset))
      continue;
    max_added_ = std::max(max_added_, offset);
    slot s{offset, size_of(msg), false};
    if (tracked_.empty() || tracked_.back().offset < offset) {
      tracked_.push_back(s);
    } else {
      // Out of order (rare): keep the slots sorted; a consumed slot of
      // the same offset is reused.
      auto i = tracked_.begin() + static_cast<ptrdiff_t>(slot_index(offset));
      if (i != tracked_.end() && i->offset == offset)
        *i = s;
      else
        tracked_.insert(i, s);
    }
    bytes_ += s.bytes;
    ++count_;
    ++added;
  }
  return added;
}

void process_queue::trim() {
  while (!tracked_.empty() && tracked_.front().done)
    tracked_.pop_front();
  while (!tracked_.empty() && tracked_.back().done)
    tracked_.pop_back();
}

std::optional<int64_t>
process_queue::remove(const std::vector<int64_t>& offsets) {
  bool trimmed = false;
  for (auto offset : offsets) {
    if (auto t = find_tracked(offset); t != tracked_.end()) {
      auto& s = tracked_[static_cast<size_t>(t - tracked_.begin())];
      s.done = true;
      bytes_ -= s.bytes;
      --count_;
      trimmed = true;
      continue;
    }
    auto i = waiting_.find(offset);
    if (i == waiting_.end())
      continue;
    bytes_ -= size_of(i->second);
    --count_;
    waiting_.erase(i);
  }
  if (trimmed)
    trim();
  return commit_offset();
}

std::optional<int64_t> process_queue::commit_offset() const {
  if (max_added_ < 0)
    return std::nullopt;
  // trim() keeps the first tracked slot in process.
  auto result = max_added_ + 1;
  if (!waiting_.empty())
    result = std::min(result, waiting_.begin()->first);
  if (!taken_.empty())
    result = std::min(result, taken_.begin()->first);
  if (!tracked_.empty())
    result = std::min(result, tracked_.front().offset);
  return result;
}

int64_t process_queue::max_span() const {
  if (waiting_.empty() && tracked_.empty())
    return 0;
  int64_t lo = INT64_MAX;
  int64_t hi = INT64_MIN;
  if (!waiting_.empty()) {
    lo = waiting_.begin()->first;
    hi = waiting_.rbegin()->first;
  }
  if (!tracked_.empty()) {
    lo = std::min(lo, tracked_.front().offset);
    hi = std::max(hi, tracked_.back().offset);
  }
  return hi - lo;
}

pause_reason process_queue::pause(const process_queue_limits& limits,
                                  bool orderly) const {
  if (static_cast<int64_t>(count_) > limits.max_count)
    return pause_reason::count;
  if (bytes_ > limits.max_bytes)
    return pause_reason::size;
  if (!orderly && max_span() > limits.max_span)
    return pause_reason::span;
  return pause_reason::none;
}

void process_queue::clear() {
  tracked_.clear();
  waiting_.clear();
  taken_.clear();
  count_ = 0;
  bytes_ = 0;
  max_added_ = -1;
}

std::vector<received_message> process_queue::take(size_t batch_size) {
  std::vector<received_message> result;
  while (result.size() < batch_size && !waiting_.empty()) {
    auto node = waiting_.extract(waiting_.begin());
    result.push_back(node.mapped());
    taken_.insert(std::move(node));
  }
  return result;
}

std::optional<int64_t> process_queue::commit() {
  for (auto& [offset, msg] : taken_) {
    bytes_ -= size_of(msg);
    --count_;
  }
  taken_.clear();
  return commit_offset();
}

void process_queue::rollback() {
  waiting_.merge(taken_);
  taken_.clear();
}

void process_queue::consume_again(const std::vector<int64_t>& offsets) {
  for (auto offset : offsets) {
    auto node = taken_.extract(offset);
    if (!node.empty())
      waiting_.insert(std::move(node));
  }
}

} // namespace rmq
