// A processor's copy of the topic config table, kept by the table's watcher
// announcements (`(put_atom, topic_config_set)` after every change), so
// that a send or a pull of a known topic needs no request to the detached
// table: one thread hop and one CAF timeout less per request. A topic the
// copy does not know is asked from the table (which may auto-create it and
// then announces the change); the copy never guesses. Between a change and
// its announcement a request may still see the old config, as a RocketMQ
// client sees routes that lag the broker's table.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"

#include "messages/broker/topics.hpp"
#include "runtime/common/request_failure.hpp"

namespace rmq {

class topic_cache {
public:
  /// The config of `name` as last announced, or null.
  const topic_config* find(const std::string& name) {
    auto i = topics_.find(name);
    if (i == topics_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    return &i->second;
  }

  /// Takes `set` unless the copy is newer (a snapshot answered after an
  /// announcement that overtook it).
  void offer(const topic_config_set& set) {
    if (snapshots_ == 0 || set.version.counter >= version_.counter)
      replace(set);
  }

  /// Replaces the copy with an announced snapshot.
  void replace(const topic_config_set& set) {
    topics_.clear();
    for (auto& tc : set.topics)
      topics_.emplace(tc.topic_name, tc);
    version_ = set.version;
    ++snapshots_;
  }

  /// Subscribes `self` to `table` as a watcher, then asks for the first
  /// snapshot (in this order: the table's mailbox then misses no change).
  /// `self`'s state must have this cache as `topic_copy` and handle
  /// `(caf::put_atom, topic_config_set&)` by calling `replace`.
  template <class Self>
  static void subscribe(Self* self, const topic_config_table_actor& table) {
    if (!table)
      return;
    self->send(table, caf::subscribe_atom::value,
               caf::actor_cast<caf::actor>(self));
    self->request(table, std::chrono::seconds{10}, caf::get_atom::value)
      .then(
        [self](topic_config_set& set) { self->state.topic_copy.offer(set); },
        [](caf::error& err) {
          // Every request then asks the table: slower, still right.
          log_request_failure("topic_cache", "the first topic snapshot", err);
        });
  }

  nlohmann::json dump_fields() const {
    return {{"topics", topics_.size()},
            {"version", version_.counter},
            {"snapshots", snapshots_},
            {"hits", hits_},
            {"misses", misses_}};
  }

private:
  std::unordered_map<std::string, topic_config> topics_;
  data_version version_;
  int64_t snapshots_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

} // namespace rmq
