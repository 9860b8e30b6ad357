// Orderly consuming (RocketMQ ConsumeMessageOrderlyService) and the
// queue locks it needs (RebalanceImpl lock, unlock);
// actors/client/consumer/push_consumer_parts.hpp.
#include "actors/client/consumer/push_consumer_parts.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/consume_from.hpp"
#include "runtime/client/received_message.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/message/retry_topic.hpp"

#include "actors/client/consumer/offset_commit.hpp"
#include "actors/client/instance/master_lookup.hpp"
#include "actors/common/dump.hpp"

namespace rmq::push_consumer_detail {

// -- locks (orderly) -------------------------------------------------------------

/// Applies a lock answer for `asked` of one broker.
void apply_locks(self_ptr self, const std::vector<message_queue>& asked,
                 const std::vector<client_queue>& held) {
  std::set<std::pair<std::string, int32_t>> got;
  for (auto& c : held)
    got.emplace(c.topic, c.queue_id);
  auto now = now_ns(self);
  for (auto& mq : asked) {
    auto i = self->state.queues.find(mq);
    if (i == self->state.queues.end())
      continue;
    auto& q = i->second;
    q.locking = false;
    bool ok = got.count({mq.topic, mq.queue_id}) > 0;
    q.pq.set_locked(ok, now);
    if (ok && !q.started && !q.pulling)
      start_queue(self, q);
    else if (q.started)
      try_pull(self, q); // a pull due while the renewal was out waited
  }
  hand_out(self);
}

/// LOCK_BATCH_MQ for `queues` of one broker.
void lock_queues(self_ptr self, const std::string& broker_name,
                 std::vector<message_queue> queues) {
  auto& st = self->state;
  lock_batch_request req;
  req.group = st.opts.cfg.group;
  req.client_id = st.opts.instance->client_id;
  for (auto& mq : queues) {
    req.queues.push_back(client_queue{mq.topic, mq.broker_name, mq.queue_id});
    st.queues[mq].locking = true;
  }
  auto timeout = st.opts.request_timeout;
  auto failed = [=](const caf::error& err) {
    log_request_failure(component, "lock at " + broker_name, err);
    // An unanswered renewal leaves the lock to expire after 30 s.
    for (auto& mq : queues) {
      auto i = self->state.queues.find(mq);
      if (i != self->state.queues.end()) {
        i->second.locking = false;
        if (i->second.started)
          try_pull(self, i->second);
      }
    }
  };
  with_lock_master(
    self, queues.front(),
    [=](client_broker_actor broker) {
      self->request(broker, timeout, req)
        .then(
          [=](const locked_queues& held) {
            apply_locks(self, queues, held.queues);
          },
          failed);
    },
    failed);
}

/// RocketMQ lockAll: every owned queue, one request per broker.
void lock_all(self_ptr self) {
  ++self->state.lock_rounds;
  std::map<std::string, std::vector<message_queue>> by_broker;
  for (auto& kvp : self->state.queues)
    by_broker[kvp.first.broker_name].push_back(kvp.first);
  for (auto& [name, qs] : by_broker)
    lock_queues(self, name, qs);
}

void unlock_queues(self_ptr self, std::vector<message_queue> queues,
                   std::function<void()> done) {
  std::map<std::string, std::vector<client_queue>> by_broker;
  for (auto& mq : queues)
    by_broker[mq.broker_name].push_back(
      client_queue{mq.topic, mq.broker_name, mq.queue_id});
  if (by_broker.empty()) {
    done();
    return;
  }
  auto pending = std::make_shared<size_t>(by_broker.size());
  auto one_done = [pending, done] {
    if (--*pending == 0)
      done();
  };
  auto& st = self->state;
  auto timeout = st.opts.request_timeout;
  for (auto& [name, cqs] : by_broker) {
    unlock_batch_request req{st.opts.cfg.group, st.opts.instance->client_id,
                             cqs};
    auto failed = [=](const caf::error& err) {
      log_request_failure(component, "unlock at " + name, err);
      one_done();
    };
    with_lock_master(
      self, message_queue{cqs.front().topic, name, cqs.front().queue_id},
      [=](client_broker_actor broker) {
        self->request(broker, timeout, req)
          .then([=](caf::ok_atom) { one_done(); }, failed);
      },
      failed);
  }
}

// -- consuming: orderly ----------------------------------------------------------

/// Orderly: the batch a dropped queue had at a worker is done: unlock the
/// queue now, or, owned again meanwhile, let it consume.
void batch_of_dropped_queue_done(self_ptr self, const message_queue& mq,
                                 int64_t gen) {
  auto& st = self->state;
  auto i = st.unlock_after_batch.find(mq);
  if (i == st.unlock_after_batch.end() || i->second != gen)
    return;
  st.unlock_after_batch.erase(i);
  if (auto j = st.queues.find(mq); j != st.queues.end()) {
    j->second.consuming = false;
    hand_out(self);
    return;
  }
  unlock_queues(self, {mq}, [] {});
}

void on_orderly_result(self_ptr self, const message_queue& mq, int64_t gen,
                       const std::vector<int64_t>& offsets,
                       std::vector<received_message> msgs,
                       orderly_status status) {
  auto q = find_queue(self, mq, gen);
  if (q == nullptr) {
    batch_of_dropped_queue_done(self, mq, gen);
    return;
  }
  auto& st = self->state;
  if (status == orderly_status::success) {
    ++st.consumed_ok;
    for (auto off : offsets)
      q->reconsumed.erase(off);
    q->pq.commit();
    q->consuming = false;
    resume(self, *q);
    hand_out(self);
    return;
  }
  ++st.consumed_retry;
  auto max = st.opts.cfg.max_reconsume_times < 0
               ? INT32_MAX
               : st.opts.cfg.max_reconsume_times;
  std::vector<int64_t> again;
  std::vector<received_message> over;
  for (auto& m : msgs) {
    if (m.reconsume_times >= max && clustering(self))
      over.push_back(m);
    else
      again.push_back(m.queue_offset);
  }
  auto finish = [=](std::vector<int64_t> back) {
    auto q = find_queue(self, mq, gen);
    if (q == nullptr)
      return;
    for (auto off : back)
      ++q->reconsumed[off];
    if (!back.empty())
      q->pq.consume_again(back);
    // What is still taken was sent back: forget it.
    q->pq.commit();
    for (auto& kvp : q->pq.taken())
      q->reconsumed.erase(kvp.first);
    q->consuming = false;
    if (!back.empty()) {
      auto at = self->clock().now()
                + self->state.opts.cfg.suspend_current_queue;
      q->resume_at = at;
      arm(self, at);
    }
    resume(self, *q);
    hand_out(self);
  };
  if (over.empty()) {
    finish(again);
    return;
  }
  // Past max reconsume times: to the broker (its DLQ), then committed;
  // a failed send-back stays and is consumed again.
  auto pending = std::make_shared<size_t>(over.size());
  auto back = std::make_shared<std::vector<int64_t>>(again);
  for (auto& m : over) {
    send_back(self, m, max, [=](bool ok) {
      if (!ok)
        back->push_back(m.queue_offset);
      if (--*pending == 0)
        finish(*back);
    });
  }
}

/// Orderly: the messages at `offsets` as the process queue holds them,
/// for a batch lost with its worker.
std::vector<received_message>
from_process_queue(self_ptr self, const message_queue& mq, int64_t gen,
                   const std::vector<int64_t>& offsets) {
  std::vector<received_message> msgs;
  auto q = find_queue(self, mq, gen);
  if (q == nullptr)
    return msgs;
  for (auto off : offsets) {
    if (auto i = q->pq.waiting().find(off); i != q->pq.waiting().end())
      msgs.push_back(i->second);
    else if (auto j = q->pq.taken().find(off); j != q->pq.taken().end())
      msgs.push_back(j->second);
  }
  return msgs;
}

} // namespace rmq::push_consumer_detail
