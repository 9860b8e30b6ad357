#include "runtime/process_queue.hpp"

#include <algorithm>

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

std::optional<int64_t>
process_queue::remove(const std::vector<int64_t>& offsets) {
  for (auto offset : offsets) {
    auto i = waiting_.find(offset);
    if (i == waiting_.end())
      continue;
    bytes_ -= size_of(i->second);
    --count_;
    waiting_.erase(i);
  }
  return commit_offset();
}

std::optional<int64_t> process_queue::commit_offset() const {
  if (max_added_ < 0)
    return std::nullopt;
  if (waiting_.empty() && taken_.empty())
    return max_added_ + 1;
  if (waiting_.empty())
    return taken_.begin()->first;
  if (taken_.empty())
    return waiting_.begin()->first;
  return std::min(waiting_.begin()->first, taken_.begin()->first);
}

int64_t process_queue::max_span() const {
  if (waiting_.size() < 2)
    return 0;
  return waiting_.rbegin()->first - waiting_.begin()->first;
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
