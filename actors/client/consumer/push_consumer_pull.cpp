// The push consumer's pulls (RocketMQ PullAPIWrapper and
// DefaultMQPushConsumerImpl#pullMessage) and where a queue starts
// (RebalancePushImpl#computePullFromWhere); actors/client/consumer/push_consumer_parts.hpp.
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

// -- start offsets -----------------------------------------------------------------

void started_at(self_ptr self, const message_queue& mq, int64_t gen,
                int64_t offset) {
  auto q = find_queue(self, mq, gen);
  if (q == nullptr)
    return;
  q->pulling = false;
  q->started = true;
  q->next_offset = offset;
  RMQ_DEBUG(component, to_text(mq) << " starts at " << offset);
  try_pull(self, *q);
}

void start_failed(self_ptr self, const message_queue& mq, int64_t gen,
                  const caf::error& err) {
  log_request_failure(component, "start offset of " + to_text(mq), err);
  if (auto q = find_queue(self, mq, gen)) {
    q->pulling = false;
    ++q->pull_errors;
    back_off(self, *q);
  }
}

/// Carries out a consume-from plan for a queue without a stored offset.
void finish_plan(self_ptr self, const message_queue& mq, int64_t gen,
                 int64_t stored) {
  auto& st = self->state;
  auto& cfg = st.opts.cfg;
  int64_t ts = 0;
  if (cfg.from_where == consume_from_where::consume_from_timestamp) {
    if (cfg.consume_timestamp.empty()) {
      ts = default_consume_timestamp(wall_ms(st.opts));
    } else if (auto parsed = parse_consume_timestamp(cfg.consume_timestamp)) {
      ts = *parsed;
    } else {
      start_failed(self, mq, gen, parsed.error());
      return;
    }
  }
  auto plan = plan_start(cfg.from_where, mq.topic, stored, ts);
  if (!plan) {
    start_failed(self, mq, gen, plan.error());
    return;
  }
  if (plan->lookup == start_lookup::none) {
    started_at(self, mq, gen, plan->offset);
    return;
  }
  auto p = *plan;
  auto timeout = st.opts.request_timeout;
  auto failed = [=](const caf::error& err) {
    start_failed(self, mq, gen, err);
  };
  auto finish = [=](int64_t looked_up) {
    auto off = finish_start(p, looked_up);
    if (off)
      started_at(self, mq, gen, *off);
    else
      failed(off.error());
  };
  with_master(
    self, mq,
    [=](client_broker_actor broker) {
      if (p.lookup == start_lookup::max_offset)
        self
          ->request(broker, timeout, get_offset_request{mq.topic, mq.queue_id})
          .then([=](const queue_offsets& o) { finish(o.max_offset); }, failed);
      else
        self
          ->request(broker, timeout,
                    search_offset_request{mq.topic, mq.queue_id,
                                          p.timestamp_ms})
          .then([=](int64_t off) { finish(off); }, failed);
    },
    failed);
}

/// The queue's start: the group's offset, else the consume-from plan.
void start_queue(self_ptr self, push_queue& q) {
  auto& st = self->state;
  q.pulling = true;
  auto mq = q.mq;
  auto gen = q.generation;
  if (!clustering(self)) {
    int64_t stored = -1;
    if (st.local_offsets) {
      auto r = st.local_offsets->read_from_file(mq);
      if (r && *r)
        stored = **r;
      else if (!r)
        RMQ_WARN(component,
                 "local offsets unreadable: " << describe(r.error()));
    }
    finish_plan(self, mq, gen, stored);
    return;
  }
  query_offset_request req;
  req.consumer_group = st.opts.cfg.group;
  req.topic = mq.topic;
  req.queue_id = mq.queue_id;
  auto timeout = st.opts.request_timeout;
  auto failed = [=](const caf::error& err) {
    start_failed(self, mq, gen, err);
  };
  with_master(
    self, mq,
    [=](client_broker_actor broker) {
      self->request(broker, timeout, req)
        .then([=](int64_t off) { finish_plan(self, mq, gen, off); },
              [=](const caf::error& err) {
                // QUERY_NOT_FOUND: the group has no offset here yet.
                if (err == errc::query_not_found)
                  finish_plan(self, mq, gen, -1);
                else
                  failed(err);
              });
    },
    failed);
}

// -- pulling ---------------------------------------------------------------------

/// Concurrent: a pull's messages become at most one job per worker, each
/// of whole consume_batch_max slices (the worker calls the listener per
/// slice). One hand-off per slice cost a thread wake-up per slice: with
/// consume_batch_max 1, 32 per pull (docs/consumer.md, "Push consumer").
void split_into_jobs(self_ptr self, const message_queue& mq, int64_t gen,
                     std::vector<received_message> msgs) {
  auto& st = self->state;
  if (msgs.empty())
    return;
  auto max
    = static_cast<size_t>(std::max<int32_t>(1, st.opts.cfg.consume_batch_max));
  auto slices = (msgs.size() + max - 1) / max;
  auto jobs = std::min(slices, std::max<size_t>(1, st.workers.size()));
  // Whole slices per job, the first jobs one slice more when they do not
  // divide evenly.
  size_t begin = 0;
  for (size_t j = 0; j < jobs; ++j) {
    auto take = (slices / jobs + (j < slices % jobs ? 1 : 0)) * max;
    auto end = std::min(msgs.size(), begin + take);
    push_job job;
    job.mq = mq;
    job.generation = gen;
    if (begin == 0 && end == msgs.size())
      job.msgs = std::move(msgs);
    else
      job.msgs.assign(
        std::make_move_iterator(msgs.begin() + static_cast<ptrdiff_t>(begin)),
        std::make_move_iterator(msgs.begin() + static_cast<ptrdiff_t>(end)));
    st.jobs.push_back(std::move(job));
    begin = end;
  }
}

/// Records no listener can take (runtime/client/received_message.hpp): straight
/// to the group's dead-letter queue (a retry would meet the same bytes),
/// held in the process queue until the broker has them so that the commit
/// offset does not pass them before. Broadcasting consumers, and a
/// send-back that fails, skip them: each is logged at WARN with its id
/// and offset (docs/reliability.md, "Undecodable messages").
void dead_letter_undecodable(self_ptr self, push_queue& q,
                             std::vector<undecodable_message> bad) {
  auto& st = self->state;
  if (bad.empty())
    return;
  auto mq = q.mq;
  auto gen = q.generation;
  std::vector<received_message> held;
  for (auto& b : bad) {
    if (q.pq.holds(b.header.queue_offset))
      continue;
    ++st.undecodable;
    if (!clustering(self)) {
      RMQ_WARN(component, "message " << b.header.msg_id << " at " << to_text(mq)
                                     << " offset " << b.header.queue_offset
                                     << " cannot be decoded (" << b.why
                                     << "): skipped (broadcasting)");
      continue;
    }
    RMQ_WARN(component, "message " << b.header.msg_id << " at " << to_text(mq)
                                   << " offset " << b.header.queue_offset
                                   << " cannot be decoded (" << b.why
                                   << "): sent to the dead-letter queue");
    held.push_back(std::move(b.header));
  }
  q.pq.track(held);
  for (auto& m : held) {
    auto off = m.queue_offset;
    auto id = m.msg_id;
    send_back(
      self, m, 0,
      [=](bool ok) {
        if (!ok) {
          ++self->state.undecodable_skipped;
          RMQ_WARN(component, "message " << id << " at " << to_text(mq)
                                         << " offset " << off
                                         << " could not be dead-lettered: "
                                            "skipped");
        }
        remove_consumed(self, mq, gen, {off});
      },
      -1);
  }
}

void on_pulled(self_ptr self, const message_queue& mq, int64_t gen,
               pull_message_result res) {
  auto q = find_queue(self, mq, gen);
  if (q == nullptr || self->state.stopping)
    return;
  auto& st = self->state;
  q->pulling = false;
  switch (static_cast<pull_status>(res.status)) {
    case pull_status::found: {
      auto pulled = decode_pulled(res, mq.broker_name);
      if (!pulled) {
        ++q->pull_errors;
        RMQ_WARN(component, "pull of "
                              << to_text(mq) << " at offset " << q->next_offset
                              << " undecodable, "
                              << "pulling again: " << describe(pulled.error()));
        back_off(self, *q);
        return;
      }
      if (pulled->cut_at >= 0) {
        // The rest comes again with the next pull.
        ++q->pull_errors;
        RMQ_WARN(component, "pull of " << to_text(mq) << " broke off at offset "
                                       << pulled->cut_at << " ("
                                       << pulled->cut_why
                                       << "): pulling again from there");
        res.next_begin_offset = pulled->cut_at;
      }
      dead_letter_undecodable(self, *q, std::move(pulled->undecodable));
      auto sub = st.subscriptions.find(mq.topic);
      // Every message of a pull has the queue's topic.
      bool retried = mq.topic == retry_topic_of(st.opts.cfg.group);
      // The messages kept are compacted in place (no second vector).
      auto& fresh = pulled->messages;
      size_t kept = 0;
      for (auto& m : fresh) {
        // The broker filters by tag hash codes; re-check the tag text.
        if (sub != st.subscriptions.end() && !sub->second.matches(m.tags)) {
          ++q->filtered;
          continue;
        }
        if (q->pq.holds(m.queue_offset))
          continue;
        if (retried)
          reset_retry_topic(m, st.opts.cfg.group);
        if (&m != &fresh[kept])
          fresh[kept] = std::move(m);
        ++kept;
      }
      fresh.resize(kept);
      q->pulled += static_cast<int64_t>(fresh.size());
      q->next_offset = res.next_begin_offset;
      if (st.orderly) {
        q->pq.add(std::move(fresh));
        break;
      }
      // Concurrent: the process queue keeps offsets and sizes only; the
      // messages move into their jobs.
      q->pq.track(fresh);
      split_into_jobs(self, mq, gen, std::move(fresh));
      break;
    }
    case pull_status::no_new_msg:
    case pull_status::no_matched_msg:
      q->next_offset = res.next_begin_offset;
      break;
    case pull_status::offset_illegal:
      // RocketMQ corrects the offset, persists it at once and starts the
      // queue over from there.
      RMQ_WARN(component, "offset " << q->next_offset << " of " << to_text(mq)
                                    << " illegal, next "
                                    << res.next_begin_offset);
      q->pq.clear();
      q->next_offset = res.next_begin_offset;
      {
        update_offset_request req;
        req.consumer_group = st.opts.cfg.group;
        req.topic = mq.topic;
        req.queue_id = mq.queue_id;
        req.commit_offset = res.next_begin_offset;
        if (clustering(self)) {
          auto timeout = st.opts.request_timeout;
          auto failed = [=](const caf::error& err) {
            ++self->state.commit_failures;
            log_request_failure(component, "offset fix of " + to_text(mq), err);
          };
          with_master(
            self, mq,
            [=](client_broker_actor broker) {
              self->request(broker, timeout, req)
                .then([=](caf::ok_atom) { ++self->state.commits; }, failed);
            },
            failed);
        } else if (st.local_offsets) {
          st.local_offsets->update(mq, res.next_begin_offset);
          if (auto err = st.local_offsets->persist({mq}))
            RMQ_WARN(component, "local offsets not saved: " << describe(err));
        }
      }
      break;
  }
  hand_out(self);
  if (auto q2 = find_queue(self, mq, gen))
    try_pull(self, *q2);
}

/// The broker refused the pull at `q.next_offset` because the record
/// there is damaged in its store (it refuses only a read that starts at
/// one): nobody can ever consume it, so the queue goes on after it, said
/// at WARN (docs/reliability.md, "Undecodable messages").
void skip_damaged(self_ptr self, push_queue& q, const caf::error& err) {
  ++self->state.damaged_skipped;
  RMQ_WARN(component, "message at " << to_text(q.mq) << " offset "
                                    << q.next_offset
                                    << " is damaged in its broker's store ("
                                    << describe(err) << "): skipped");
  ++q.next_offset;
  q.pulling = false;
  q.pull_addr.clear();
  try_pull(self, q);
}

void try_pull(self_ptr self, push_queue& q) {
  auto& st = self->state;
  if (st.stopping || q.pulling || q.locking || q.pull_at)
    return;
  if (!q.started) {
    if (needs_lock(self) && !q.pq.locked())
      return; // the lock answer starts it
    start_queue(self, q);
    return;
  }
  if (q.pq.should_pause(st.opts.cfg.limits, st.orderly)) {
    if (!q.paused)
      ++q.paused_times;
    q.paused = true;
    return;
  }
  q.paused = false;
  if (needs_lock(self) && !q.pq.locked()) {
    // RocketMQ: an orderly queue not locked yet is pulled again after 3 s.
    back_off(self, q);
    return;
  }
  auto& cfg = st.opts.cfg;
  pull_message_request req;
  req.consumer_group = cfg.group;
  req.topic = q.mq.topic;
  req.queue_id = q.mq.queue_id;
  req.queue_offset = q.next_offset;
  req.max_msg_nums = cfg.pull_batch_size;
  req.sys_flag = pull_sys_flag::suspend | pull_sys_flag::subscription;
  if (clustering(self)) {
    auto off = q.pq.commit_offset();
    if (off && *off > 0) {
      req.sys_flag |= pull_sys_flag::commit_offset;
      req.commit_offset = *off;
    }
  }
  req.suspend_timeout_ms
    = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.suspend_timeout)
        .count();
  auto sub = st.subscriptions.find(q.mq.topic);
  req.subscription = sub != st.subscriptions.end() ? sub->second.sub_string
                                                   : std::string{"*"};
  q.pulling = true;
  ++q.pulls;
  auto seq = ++q.pull_seq;
  auto mq = q.mq;
  auto gen = q.generation;
  auto timeout = cfg.pull_timeout;
  // Only the pull in flight counts: one given up on a lost connection was
  // already failed and backed off.
  auto current = [=]() -> push_queue* {
    auto q = find_queue(self, mq, gen);
    return q != nullptr && q->pull_seq == seq && q->pulling ? q : nullptr;
  };
  auto failed = [=](const caf::error& err) {
    auto q = current();
    if (q == nullptr)
      return;
    if (err == errc::corrupt_data) {
      skip_damaged(self, *q, err);
      return;
    }
    if (err == errc::system_busy)
      // E.g. a damaged consume queue the broker is rebuilding: the error
      // names the queue and offset; pulled again after the back-off.
      RMQ_WARN(component, "pull of " << to_text(mq) << " at offset "
                                     << q->next_offset << " refused, pulling "
                                     << "again: " << describe(err));
    else
      log_request_failure(component, "pull of " + to_text(mq), err);
    if (!q->pull_addr.empty())
      forget_master(self, q->pull_addr);
    q->pull_from = master_id; // a suggested slave may be the one gone
    give_up_pull(self, *q);
  };
  auto& pst = self->state;
  with_master_at(
    self, *pst.opts.instance, pst.masters, mq, pst.opts.request_timeout,
    [=](client_broker_actor broker, const std::string& addr) {
      auto q = current();
      if (q == nullptr)
        return;
      q->pull_addr = addr;
      // No CAF request timeout (two clock-thread wake-ups per pull): the
      // consumer's tick gives the pull up at its deadline.
      q->pull_deadline = self->clock().now() + timeout;
      if (self->state.pull_timers.arm(q->pull_deadline))
        arm(self, q->pull_deadline);
      self->request(broker, caf::infinite, req)
        .then(
          [=](pull_message_result& res) {
            if (auto q = current()) {
              q->pull_addr.clear();
              q->pull_from = res.suggest_which_broker_id;
              on_pulled(self, mq, gen, std::move(res));
            }
          },
          failed);
    },
    failed, false, q.pull_from);
}

/// A queue whose process queue drained enough pulls again.
void resume(self_ptr self, push_queue& q) {
  if (q.paused
      && !q.pq.should_pause(self->state.opts.cfg.limits, self->state.orderly))
    try_pull(self, q);
}

} // namespace rmq::push_consumer_detail
