// Deadlines of the requests a remoting server has in hand: its answers to
// clients and its own requests to them. They are kept here and checked by
// the server's sweep timer instead of one timer of the actor clock each,
// because CAF 0.17's clock wakes its thread for every timer set: at
// tens of thousands of requests a second that thread took a core's share
// (docs/benchmarks.md, "Remoting"). A deadline then fires up to one sweep
// late. Time is whatever the caller's clock gives (the actor clock, or
// numbers in a test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace rmq::remoting {

template <class TimePoint, class Value>
class deadline_list {
public:
  using id_type = uint64_t;

  /// Keeps `value` until `due`; answers the key that takes it back.
  id_type add(TimePoint due, Value value) {
    auto id = next_++;
    by_due_.emplace(std::make_pair(due, id), std::move(value));
    due_of_.emplace(id, due);
    return id;
  }

  /// Takes back what `id` keeps (done in time); none once it expired or
  /// was taken.
  std::optional<Value> take(id_type id) {
    auto i = due_of_.find(id);
    if (i == due_of_.end())
      return std::nullopt;
    auto j = by_due_.find(std::make_pair(i->second, id));
    std::optional<Value> out{std::move(j->second)};
    by_due_.erase(j);
    due_of_.erase(i);
    return out;
  }

  /// Takes everything due at or before `now`, earliest first.
  std::vector<Value> expire(TimePoint now) {
    std::vector<Value> out;
    auto i = by_due_.begin();
    while (i != by_due_.end() && !(now < i->first.first)) {
      due_of_.erase(i->first.second);
      out.push_back(std::move(i->second));
      i = by_due_.erase(i);
    }
    return out;
  }

  /// Takes everything (the server is going away).
  std::vector<Value> clear() {
    std::vector<Value> out;
    for (auto& [key, value] : by_due_)
      out.push_back(std::move(value));
    by_due_.clear();
    due_of_.clear();
    return out;
  }

  size_t size() const {
    return due_of_.size();
  }

private:
  id_type next_ = 1;
  std::map<std::pair<TimePoint, id_type>, Value> by_due_;
  std::map<id_type, TimePoint> due_of_;
};

} // namespace rmq::remoting
