#include "actors/broker/table/queue_lock_table.hpp"

#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* queue_lock_table_state::name = "queue_lock_table";

namespace {

constexpr const char* component = "queue_lock_table";

} // namespace

locked_queues queue_lock_table_state::lock(const lock_batch_request& x,
                                           time_point now) {
  // RocketMQ tryLockBatch: the caller's own lock is renewed even when it
  // expired (nobody took it in between); a free or expired one is taken.
  std::set<client_queue> held;
  auto& table = locks[x.group];
  for (auto& mq : x.queues) {
    auto i = table.find(mq);
    if (i == table.end()) {
      table.emplace(mq, lock_entry{x.client_id, now});
      ++granted;
      held.insert(mq);
      continue;
    }
    auto& entry = i->second;
    if (entry.client_id == x.client_id) {
      entry.last_update = now;
      held.insert(mq);
      continue;
    }
    if (now - entry.last_update > max_live_time) {
      RMQ_INFO(component, "group " << x.group << ": " << x.client_id
                                   << " takes the expired lock of "
                                   << entry.client_id << " on " << mq.topic
                                   << ":" << mq.broker_name << ":"
                                   << mq.queue_id);
      entry = lock_entry{x.client_id, now};
      ++granted;
      held.insert(mq);
      continue;
    }
    ++refused;
  }
  if (table.empty())
    locks.erase(x.group);
  return locked_queues{{held.begin(), held.end()}};
}

void queue_lock_table_state::unlock(const unlock_batch_request& x) {
  auto i = locks.find(x.group);
  if (i == locks.end())
    return;
  for (auto& mq : x.queues) {
    auto j = i->second.find(mq);
    if (j != i->second.end() && j->second.client_id == x.client_id)
      i->second.erase(j);
  }
  if (i->second.empty())
    locks.erase(i);
}

nlohmann::json queue_lock_table_state::dump_fields() const {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  auto rows = nlohmann::json::array();
  for (auto& [group, table] : locks)
    for (auto& [mq, entry] : table)
      rows.push_back(
        {{"group", group},
         {"queue", mq},
         {"client_id", entry.client_id},
         {"age_ms",
          duration_cast<milliseconds>(dump_now - entry.last_update).count()},
         {"expired", dump_now - entry.last_update > max_live_time}});
  return {
    {"max_live_time_ms", duration_cast<milliseconds>(max_live_time).count()},
    {"locks", std::move(rows)},
    {"granted", granted},
    {"refused", refused},
  };
}

queue_lock_table_actor::behavior_type queue_lock_table(
  queue_lock_table_actor::stateful_pointer<queue_lock_table_state> self,
  caf::timespan max_live_time) {
  self->state.max_live_time = max_live_time;
  return {
    [=](const lock_batch_request& x) -> caf::result<locked_queues> {
      // An empty id would let every anonymous caller share one lock.
      if (x.client_id.empty() || x.group.empty())
        return make_error(errc::invalid_parameter,
                          "a lock needs a consumer group and a client id");
      return self->state.lock(x, self->clock().now());
    },
    [=](const unlock_batch_request& x) -> caf::ok_atom {
      self->state.unlock(x);
      return caf::ok_atom::value;
    },
    [=](dump_atom x) {
      self->state.dump_now = self->clock().now();
      return dump_handler(self)(x);
    },
  };
}

} // namespace rmq
