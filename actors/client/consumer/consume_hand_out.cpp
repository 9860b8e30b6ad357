// Handing consume jobs to idle workers (the consume thread pool of
// RocketMQ's consume services); actors/client/consumer/push_consumer_parts.hpp.
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

// -- hand-out: jobs to idle workers -------------------------------------------------

/// Concurrent: a batch lost with its worker is kept nowhere else, so the
/// queue starts over from its commit offset, which has not passed the
/// lost messages: the next pull brings them again (and those after them a
/// second time: at-least-once). The new generation drops the answers of
/// the queue's other batches and of its pull in flight.
void start_over(self_ptr self, push_queue& q) {
  auto off = q.pq.commit_offset();
  RMQ_WARN(component, "a batch of " << to_text(q.mq)
                                    << " was lost with its worker; pulling "
                                       "again from the commit offset");
  q.pq.clear();
  q.generation = ++self->state.generations;
  if (off)
    q.next_offset = *off;
  q.pulling = false;
  q.pull_addr.clear();
  ++q.pull_seq;
  q.paused = false;
  try_pull(self, q);
}

void hand_to_worker(self_ptr self, push_job job) {
  auto& st = self->state;
  auto worker = st.idle.back();
  st.idle.pop_back();
  ++st.in_flight;
  auto mq = job.mq;
  auto gen = job.generation;
  // The batch moves to the worker, which frees it, and comes back only
  // for a retry: no copy is kept meanwhile (the copies were most of the
  // consumer's CPU, see docs/benchmarks.md). An orderly batch lost with
  // its worker is read again from the process queue's taken messages; a
  // concurrent one starts its queue over (start_over).
  auto offsets = std::make_shared<std::vector<int64_t>>();
  offsets->reserve(job.msgs.size());
  for (auto& m : job.msgs)
    offsets->push_back(m.queue_offset);
  // A listener may run long (RocketMQ's consumeTimeout is 15 min); the
  // worker always answers, or the request fails when it is gone.
  self->request(worker, caf::infinite, consume_atom::value, std::move(job.msgs))
    .then(
      [=](consume_result& res) {
        auto& st = self->state;
        --st.in_flight;
        st.idle.push_back(worker);
        if (st.orderly)
          on_orderly_result(self, mq, gen, *offsets, std::move(res.batch),
                            static_cast<orderly_status>(res.status));
        else
          on_concurrent_result(self, mq, gen, *offsets, std::move(res));
        hand_out(self);
        maybe_finish_shutdown(self);
      },
      [=](const caf::error& err) {
        auto& st = self->state;
        --st.in_flight;
        log_request_failure(component, "consume at a worker", err);
        if (st.orderly)
          on_orderly_result(self, mq, gen, *offsets,
                            from_process_queue(self, mq, gen, *offsets),
                            orderly_status::suspend_current_queue_a_moment);
        else if (auto q = find_queue(self, mq, gen); q && !st.stopping)
          start_over(self, *q);
        maybe_finish_shutdown(self);
      });
}

void hand_out(self_ptr self) {
  auto& st = self->state;
  if (st.stopping)
    return;
  if (!st.orderly) {
    while (!st.idle.empty() && !st.jobs.empty()) {
      auto job = std::move(st.jobs.front());
      st.jobs.pop_front();
      if (find_queue(self, job.mq, job.generation) == nullptr)
        continue; // dropped meanwhile
      hand_to_worker(self, std::move(job));
    }
    return;
  }
  auto now = self->clock().now();
  auto now_n = now_ns(self);
  auto max
    = static_cast<size_t>(std::max<int32_t>(1, st.opts.cfg.consume_batch_max));
  for (auto& kvp : st.queues) {
    if (st.idle.empty())
      return;
    auto& q = kvp.second;
    if (q.consuming || q.pq.waiting().empty())
      continue;
    if (q.resume_at && *q.resume_at > now)
      continue;
    q.resume_at.reset();
    // A lock older than 30 s may be someone else's by now.
    if (needs_lock(self) && (!q.pq.locked() || q.pq.lock_expired(now_n)))
      continue;
    auto msgs = q.pq.take(max);
    for (auto& m : msgs) {
      auto i = q.reconsumed.find(m.queue_offset);
      if (i != q.reconsumed.end())
        m.reconsume_times += i->second;
    }
    q.consuming = true;
    push_job job;
    job.mq = q.mq;
    job.generation = q.generation;
    job.msgs = std::move(msgs);
    hand_to_worker(self, std::move(job));
  }
}

} // namespace rmq::push_consumer_detail
