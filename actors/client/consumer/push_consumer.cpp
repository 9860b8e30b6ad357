#include "actors/client/consumer/push_consumer.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <iterator>
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

#include "actors/common/dump.hpp"

namespace rmq {

const char* push_consumer_state::name = "push_consumer";

namespace {

constexpr const char* component = "push_consumer";

/// RocketMQ getMaxReconsumeTimes(): -1 means 16 for concurrent listeners.
constexpr int32_t default_max_reconsume = 16;

using self_ptr = push_consumer_actor::stateful_pointer<push_consumer_state>;
using time_point = caf::actor_clock::time_point;

std::string to_text(const message_queue& mq) {
  return mq.topic + "@" + mq.broker_name + ":" + std::to_string(mq.queue_id);
}

int64_t wall_ms(const push_consumer_options& opts) {
  if (opts.wall_clock_ms)
    return opts.wall_clock_ms();
  // Wall-clock data (the default consume timestamp, sub_version), not a
  // timer: the actor clock has no epoch.
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

bool clustering(self_ptr self) {
  return self->state.opts.cfg.model == message_model::clustering;
}

/// Orderly clustering consumers hold broker locks; broadcasting ones do
/// not need them (every member reads every queue), as in RocketMQ.
bool needs_lock(self_ptr self) {
  return self->state.orderly && clustering(self);
}

int64_t now_ns(self_ptr self) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

/// Wakes the actor at `at` (the tick handler checks every deadline).
void arm(self_ptr self, time_point at) {
  auto now = self->clock().now();
  auto d = at > now ? at - now : caf::timespan{0};
  self->delayed_send(self, d, caf::tick_atom::value);
}

push_queue* find_queue(self_ptr self, const message_queue& mq,
                       int64_t generation) {
  auto i = self->state.queues.find(mq);
  if (i == self->state.queues.end() || i->second.generation != generation)
    return nullptr;
  return &i->second;
}

/// Calls `f` with the master of `broker_name` (from the cached routes,
/// through the directory), or `fail` with the error.
/// Resolves the master of `broker_name` and connects to it; `f` gets the
/// handle and its address.
void with_master_at(
  self_ptr self, const std::string& broker_name,
  std::function<void(client_broker_actor, const std::string&)> f,
  std::function<void(const caf::error&)> fail) {
  auto& inst = *self->state.opts.instance;
  if (auto known = self->state.masters.find(broker_name)) {
    // Two requests (route cache, peer directory) less per pull.
    auto [addr, hdl] = *known;
    f(hdl, addr);
    return;
  }
  auto timeout = self->state.opts.request_timeout;
  auto dir = inst.directory;
  self->request(inst.routes, timeout, brokers_atom::value)
    .then(
      [=](const std::vector<broker_data>& brokers) {
        std::string addr;
        for (auto& b : brokers) {
          if (b.broker_name != broker_name)
            continue;
          auto i = b.broker_addrs.find(0);
          if (i != b.broker_addrs.end())
            addr = i->second;
        }
        if (addr.empty()) {
          fail(make_error(errc::service_not_available,
                          "no master known for broker " + broker_name));
          return;
        }
        self
          ->request(dir, inst.config.connect_timeout + std::chrono::seconds{1},
                    caf::connect_atom::value, addr)
          .then(
            [=](client_broker_actor& hdl) {
              self->state.masters.put(broker_name, addr, hdl);
              f(hdl, addr);
            },
            fail);
      },
      fail);
}

void with_master(self_ptr self, const std::string& broker_name,
                 std::function<void(client_broker_actor)> f,
                 std::function<void(const caf::error&)> fail) {
  with_master_at(
    self, broker_name,
    [f](client_broker_actor hdl, const std::string&) { f(std::move(hdl)); },
    std::move(fail));
}

void try_pull(self_ptr self, push_queue& q);
void dispatch(self_ptr self);
void maybe_finish_shutdown(self_ptr self);

/// A request to `addr` failed or its connection went: resolve its broker
/// again next time.
void forget_master(self_ptr self, const std::string& addr) {
  self->state.masters.forget_address(addr);
}

void back_off(self_ptr self, push_queue& q);

/// Ends the pull in flight of `q` without its answer (a late one is
/// dropped by its sequence number) and pulls again after the back-off.
void give_up_pull(self_ptr self, push_queue& q) {
  q.pulling = false;
  q.pull_addr.clear();
  ++q.pull_errors;
  if (!self->state.stopping)
    back_off(self, q);
}

/// The pull timer fired: gives up the pulls past their deadline (as a CAF
/// request timeout would) and arms the timer for the next one.
void check_pull_deadlines(self_ptr self, time_point now) {
  auto& st = self->state;
  st.pull_timers.fired(now);
  std::optional<time_point> next;
  for (auto& [mq, q] : st.queues) {
    if (!q.pulling || q.pull_addr.empty())
      continue;
    if (q.pull_deadline <= now) {
      log_request_failure(component, "pull of " + to_text(mq),
                          caf::make_error(caf::sec::request_timeout));
      forget_master(self, q.pull_addr);
      give_up_pull(self, q);
    } else if (!next || q.pull_deadline < *next) {
      next = q.pull_deadline;
    }
  }
  if (next && st.pull_timers.arm(*next))
    arm(self, *next);
}

void back_off(self_ptr self, push_queue& q) {
  auto at = self->clock().now() + self->state.opts.cfg.pull_backoff;
  q.pull_at = at;
  arm(self, at);
}

// -- committing ------------------------------------------------------------------

/// Sends one queue's commit offset to its master (clustering) or into the
/// local offsets file (broadcasting); `done` runs once it is answered.
void commit_queue(self_ptr self, push_queue& q, std::function<void()> done) {
  auto off = q.pq.commit_offset();
  if (!off) {
    done();
    return;
  }
  auto& st = self->state;
  if (!clustering(self)) {
    if (st.local_offsets) {
      st.local_offsets->update(q.mq, *off);
      if (auto err = st.local_offsets->persist({q.mq})) {
        ++st.commit_failures;
        RMQ_WARN(component, "local offsets of "
                              << to_text(q.mq)
                              << " not saved: " << describe(err));
      } else {
        ++st.commits;
        q.last_committed = *off;
      }
    }
    done();
    return;
  }
  update_offset_request req;
  req.consumer_group = st.opts.cfg.group;
  req.topic = q.mq.topic;
  req.queue_id = q.mq.queue_id;
  req.commit_offset = *off;
  auto mq = q.mq;
  auto gen = q.generation;
  auto timeout = st.opts.request_timeout;
  auto failed = [=](const caf::error& err) {
    ++self->state.commit_failures;
    log_request_failure(component, "commit of " + to_text(mq), err);
    done();
  };
  with_master(
    self, mq.broker_name,
    [=](client_broker_actor broker) {
      self->request(broker, timeout, req)
        .then(
          [=](caf::ok_atom) {
            ++self->state.commits;
            if (auto q = find_queue(self, mq, gen))
              q->last_committed = req.commit_offset;
            done();
          },
          failed);
    },
    failed);
}

/// Commits every queue; `done` once all answered.
void commit_all(self_ptr self, std::function<void()> done) {
  auto& qs = self->state.queues;
  if (qs.empty()) {
    done();
    return;
  }
  auto pending = std::make_shared<size_t>(qs.size());
  for (auto& kvp : qs)
    commit_queue(self, kvp.second, [pending, done] {
      if (--*pending == 0)
        done();
    });
}

// -- locks (orderly) -------------------------------------------------------------

void start_queue(self_ptr self, push_queue& q);

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
  dispatch(self);
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
  with_master(
    self, broker_name,
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
    with_master(
      self, name,
      [=](client_broker_actor broker) {
        self->request(broker, timeout, req)
          .then([=](caf::ok_atom) { one_done(); }, failed);
      },
      failed);
  }
}

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
    self, mq.broker_name,
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
    self, mq.broker_name,
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

void remove_consumed(self_ptr self, const message_queue& mq, int64_t gen,
                     const std::vector<int64_t>& offsets);
void send_back(self_ptr self, const received_message& m, int32_t max_times,
               std::function<void(bool)> done, int32_t delay_level = 0);

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
            self, mq.broker_name,
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
  dispatch(self);
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
    give_up_pull(self, *q);
  };
  with_master_at(
    self, mq.broker_name,
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
              on_pulled(self, mq, gen, std::move(res));
            }
          },
          failed);
    },
    failed);
}

/// A queue whose process queue drained enough pulls again.
void resume(self_ptr self, push_queue& q) {
  if (q.paused
      && !q.pq.should_pause(self->state.opts.cfg.limits, self->state.orderly))
    try_pull(self, q);
}

// -- consuming: concurrent -------------------------------------------------------

void remove_consumed(self_ptr self, const message_queue& mq, int64_t gen,
                     const std::vector<int64_t>& offsets) {
  if (auto q = find_queue(self, mq, gen)) {
    q->pq.remove(offsets);
    resume(self, *q);
  }
}

/// Keeps a failed message for a local retry after local_retry_delay
/// (RocketMQ submitConsumeRequestLater): it stays in the process queue,
/// so the commit offset cannot pass it.
void retry_locally(self_ptr self, const message_queue& mq, int64_t gen,
                   std::vector<received_message> msgs) {
  auto& st = self->state;
  for (auto& m : msgs)
    ++m.reconsume_times;
  push_job job;
  job.mq = mq;
  job.generation = gen;
  job.msgs = std::move(msgs);
  auto at = self->clock().now() + st.opts.cfg.local_retry_delay;
  job.due = at;
  ++st.local_retries;
  st.later.push_back(std::move(job));
  arm(self, at);
}

/// CONSUMER_SEND_MSG_BACK for one message to its broker's master; `done`
/// gets whether the broker took it. `delay_level` -1 sends it to the
/// dead-letter queue at once (RocketMQ's rule).
void send_back(self_ptr self, const received_message& m, int32_t max_times,
               std::function<void(bool)> done, int32_t delay_level) {
  auto& st = self->state;
  consumer_send_back_request req;
  req.offset = m.commit_log_offset;
  req.group = st.opts.cfg.group;
  // 0: the broker's choice, 3 + reconsume times; -1: the dead letters.
  req.delay_level = delay_level;
  req.origin_msg_id = m.msg_id;
  req.origin_topic = m.topic;
  req.max_reconsume_times = max_times;
  auto timeout = st.opts.request_timeout;
  auto what = "send-back of " + m.msg_id;
  auto failed = [=](const caf::error& err) {
    ++self->state.send_back_failed;
    log_request_failure(component, what, err);
    done(false);
  };
  with_master(
    self, m.broker_name,
    [=](client_broker_actor broker) {
      self->request(broker, timeout, req)
        .then(
          [=](caf::ok_atom) {
            ++self->state.sent_back;
            done(true);
          },
          failed);
    },
    failed);
}

/// `offsets`: the job's; `res.batch`: the messages of its slices that the
/// listener asked to retry (the rest were consumed).
void on_concurrent_result(self_ptr self, const message_queue& mq, int64_t gen,
                          const std::vector<int64_t>& offsets,
                          consume_result res) {
  auto& st = self->state;
  st.consumed_ok += res.calls - res.retried_calls;
  if (static_cast<consume_status>(res.status)
      == consume_status::consume_success) {
    remove_consumed(self, mq, gen, offsets);
    return;
  }
  st.consumed_retry += res.retried_calls;
  auto& msgs = res.batch;
  if (!clustering(self)) {
    // RocketMQ drops failed messages of broadcasting consumers.
    RMQ_WARN(component, "broadcasting: dropping " << msgs.size()
                                                  << " failed message(s) of "
                                                  << to_text(mq));
    remove_consumed(self, mq, gen, offsets);
    return;
  }
  if (msgs.size() < offsets.size()) {
    // The slices consumed are done now; the retried ones wait for their
    // send-back below.
    std::vector<int64_t> retried;
    retried.reserve(msgs.size());
    for (auto& m : msgs)
      retried.push_back(m.queue_offset);
    std::sort(retried.begin(), retried.end());
    std::vector<int64_t> done;
    done.reserve(offsets.size() - msgs.size());
    for (auto off : offsets)
      if (!std::binary_search(retried.begin(), retried.end(), off))
        done.push_back(off);
    remove_consumed(self, mq, gen, done);
  }
  auto max = st.opts.cfg.max_reconsume_times < 0
               ? default_max_reconsume
               : st.opts.cfg.max_reconsume_times;
  for (auto& m : msgs) {
    send_back(self, m, max, [=](bool ok) {
      if (ok)
        remove_consumed(self, mq, gen, {m.queue_offset});
      else if (find_queue(self, mq, gen) != nullptr && !self->state.stopping)
        retry_locally(self, mq, gen, {m});
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
    dispatch(self);
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
    dispatch(self);
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
    dispatch(self);
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

// -- dispatch ----------------------------------------------------------------------

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
        dispatch(self);
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

void dispatch(self_ptr self) {
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

// -- assignment --------------------------------------------------------------------

void drop_queue(self_ptr self, const message_queue& mq) {
  auto i = self->state.queues.find(mq);
  if (i == self->state.queues.end())
    return;
  auto& q = i->second;
  q.pq.set_dropped(true);
  RMQ_INFO(component, "dropping " << to_text(mq));
  // The commit goes out before the queue is forgotten (RocketMQ
  // removeUnnecessaryMessageQueue persists, then removes).
  commit_queue(self, q, [] {});
  if (needs_lock(self)) {
    if (q.consuming && self->state.orderly)
      self->state.unlock_after_batch[mq] = q.generation;
    else
      unlock_queues(self, {mq}, [] {});
  }
  if (self->state.local_offsets)
    self->state.local_offsets->remove(mq);
  self->state.queues.erase(i);
}

void assign(self_ptr self, const queue_assignment& a) {
  auto& st = self->state;
  if (st.stopping)
    return;
  // Masters are resolved again at each assignment (a moved one is found).
  st.masters.clear();
  std::set<message_queue> wanted(a.queues.begin(), a.queues.end());
  std::vector<message_queue> gone;
  for (auto& kvp : st.queues)
    if (kvp.first.topic == a.topic && wanted.count(kvp.first) == 0)
      gone.push_back(kvp.first);
  for (auto& mq : gone)
    drop_queue(self, mq);
  std::map<std::string, std::vector<message_queue>> to_lock;
  for (auto& mq : wanted) {
    if (st.queues.count(mq) > 0)
      continue;
    auto& q = st.queues[mq];
    q.mq = mq;
    q.generation = ++st.generations;
    // The last ownership's batch is still at a worker: this one waits.
    q.consuming = st.unlock_after_batch.count(mq) > 0;
    RMQ_INFO(component, "owning " << to_text(mq));
    if (needs_lock(self))
      to_lock[mq.broker_name].push_back(mq);
    else
      try_pull(self, q);
  }
  // RocketMQ locks a new orderly queue before it pulls it.
  for (auto& [name, qs] : to_lock)
    lock_queues(self, name, qs);
}

// -- registration and shutdown -------------------------------------------------------

consumer_data make_consumer_data(self_ptr self) {
  auto& st = self->state;
  consumer_data d;
  d.group_name = st.opts.cfg.group;
  d.type = consume_type::consume_passively;
  d.model = st.opts.cfg.model;
  d.from_where = st.opts.cfg.from_where;
  auto version = wall_ms(st.opts);
  for (auto& [topic, expr] : st.subscriptions)
    d.subscriptions.push_back(make_subscription_data(topic, expr, version));
  return d;
}

/// The rebalance service tells this consumer its queues from now on
/// (after the first heartbeat, so the broker lists it as a member).
void register_rebalance(self_ptr self) {
  auto& st = self->state;
  auto& inst = *st.opts.instance;
  if (!st.opts.rebalance || !inst.rebalance || st.stopping)
    return;
  rebalance_subscription sub;
  sub.group = st.opts.cfg.group;
  sub.model = st.opts.cfg.model;
  for (auto& kvp : st.subscriptions)
    sub.topics.push_back(kvp.first);
  sub.strategy = st.opts.cfg.allocate_strategy;
  self
    ->request(inst.rebalance, st.opts.request_timeout, caf::put_atom::value,
              sub, caf::actor_cast<rebalance_target_actor>(self))
    .then([](caf::ok_atom) {},
          [](const caf::error& err) {
            log_request_failure(component, "rebalance registration", err);
          });
}

/// Routes of the topics first, so the first heartbeat reaches their
/// brokers (RocketMQ's start order), then the group into the heartbeats.
void register_group(self_ptr self) {
  auto& st = self->state;
  auto timeout = st.opts.request_timeout;
  auto pending = std::make_shared<size_t>(st.subscriptions.size());
  auto heartbeat = [=] {
    if (--*pending > 0)
      return;
    auto hb = self->state.opts.instance->heartbeats;
    self
      ->request(hb, timeout + self->state.opts.instance->config.connect_timeout,
                consumer_atom::value, make_consumer_data(self))
      .then(
        [=](caf::ok_atom) {
          self->state.registered = true;
          register_rebalance(self);
        },
        [=](const caf::error& err) {
          // The next heartbeat round carries the group anyway.
          self->state.registered = true;
          log_request_failure(component, "first heartbeat", err);
          register_rebalance(self);
        });
  };
  for (auto& kvp : st.subscriptions) {
    auto topic = kvp.first;
    self->request(st.opts.instance->routes, timeout, route_atom::value, topic)
      .then([=](const topic_route_data&) { heartbeat(); },
            [=](const caf::error& err) {
              log_request_failure(component, "route of " + topic, err);
              heartbeat();
            });
  }
}

void finish_shutdown(self_ptr self) {
  auto after_unlock = [=] {
    auto& st = self->state;
    auto done = [=] {
      for (auto& w : self->state.workers)
        caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
      for (auto& rp : self->state.shutdown_waiters)
        rp.deliver(caf::ok_atom::value);
      self->state.shutdown_waiters.clear();
      self->quit();
    };
    self
      ->request(
        st.opts.instance->heartbeats,
        st.opts.request_timeout * 2 + st.opts.instance->config.connect_timeout,
        caf::delete_atom::value, consumer_atom::value, st.opts.cfg.group)
      .then([=](caf::ok_atom) { done(); },
            [=](const caf::error& err) {
              log_request_failure(component, "unregistering the group", err);
              done();
            });
  };
  commit_all(self, [=] {
    if (needs_lock(self)) {
      std::vector<message_queue> qs;
      for (auto& kvp : self->state.queues)
        qs.push_back(kvp.first);
      // Past the wait bound the workers are stopped with their batches.
      for (auto& kvp : self->state.unlock_after_batch)
        if (self->state.queues.count(kvp.first) == 0)
          qs.push_back(kvp.first);
      self->state.unlock_after_batch.clear();
      unlock_queues(self, qs, after_unlock);
    } else {
      after_unlock();
    }
  });
}

/// Moves on once no batch is at a worker (or the wait bound passed).
void maybe_finish_shutdown(self_ptr self) {
  auto& st = self->state;
  if (!st.stopping || st.finishing || st.in_flight > 0)
    return;
  st.finishing = true;
  finish_shutdown(self);
}

void on_tick(self_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  check_pull_deadlines(self, now);
  if (st.stopping) {
    if (!st.finishing && now >= st.shutdown_deadline) {
      RMQ_WARN(component, st.in_flight << " batch(es) still consuming at "
                                          "shutdown; committing without them");
      st.finishing = true;
      finish_shutdown(self);
    }
    return;
  }
  for (auto& kvp : st.queues) {
    auto& q = kvp.second;
    if (q.pull_at && *q.pull_at <= now) {
      q.pull_at.reset();
      try_pull(self, q);
    }
  }
  for (auto i = st.later.begin(); i != st.later.end();) {
    if (i->due && *i->due <= now) {
      i->due.reset();
      st.jobs.push_back(std::move(*i));
      i = st.later.erase(i);
    } else {
      ++i;
    }
  }
  if (now >= st.next_persist) {
    commit_all(self, [] {});
    st.next_persist = now + st.opts.cfg.persist_interval;
    arm(self, st.next_persist);
  }
  if (needs_lock(self) && now >= st.next_lock) {
    lock_all(self);
    st.next_lock = now + st.opts.cfg.lock_renew_interval;
    arm(self, st.next_lock);
  }
  dispatch(self);
}

} // namespace

nlohmann::json push_consumer_state::dump_fields() const {
  auto qs = nlohmann::json::array();
  for (auto& [mq, q] : queues) {
    auto off = q.pq.commit_offset();
    qs.push_back({{"queue", mq},
                  {"started", q.started},
                  {"next_offset", q.next_offset},
                  {"commit_offset", off ? *off : -1},
                  {"last_committed", q.last_committed},
                  {"count", q.pq.count()},
                  {"bytes", q.pq.bytes()},
                  {"paused", q.paused},
                  {"paused_times", q.paused_times},
                  {"locked", q.pq.locked()},
                  {"consuming", q.consuming},
                  {"pulls", q.pulls},
                  {"pull_errors", q.pull_errors},
                  {"pulled", q.pulled},
                  {"filtered", q.filtered}});
  }
  return {{"group", opts.cfg.group},
          {"orderly", orderly},
          {"model", opts.cfg.model},
          {"queues", qs},
          {"workers", workers.size()},
          {"idle_workers", idle.size()},
          {"masters", masters.size()},
          {"pull_timers", pull_timers.size()},
          {"waiting_batches", jobs.size()},
          {"local_retries_waiting", later.size()},
          {"in_flight", in_flight},
          {"consumed_ok", consumed_ok},
          {"consumed_retry", consumed_retry},
          {"sent_back", sent_back},
          {"send_back_failed", send_back_failed},
          {"undecodable", undecodable},
          {"undecodable_skipped", undecodable_skipped},
          {"damaged_skipped", damaged_skipped},
          {"local_retries", local_retries},
          {"commits", commits},
          {"commit_failures", commit_failures},
          {"lock_rounds", lock_rounds},
          {"registered", registered},
          {"stopping", stopping}};
}

push_consumer_actor::behavior_type push_consumer_impl(
  push_consumer_actor::stateful_pointer<push_consumer_state> self,
  push_consumer_options opts) {
  auto& st = self->state;
  st.opts = std::move(opts);
  st.orderly = static_cast<bool>(st.opts.orderly);
  for (auto& s : st.opts.cfg.subscriptions) {
    auto expr = parse_subscription_expression(s.expression);
    // spawn_push_consumer_actor checked them.
    if (expr)
      st.subscriptions[s.topic] = *expr;
  }
  if (st.opts.cfg.model == message_model::clustering) {
    // Failed messages come back on the group's retry topic.
    auto all = parse_subscription_expression("*");
    st.subscriptions[retry_topic_of(st.opts.cfg.group)] = *all;
  } else {
    auto dir = st.opts.cfg.offset_dir.empty() ? default_local_offset_dir()
                                              : st.opts.cfg.offset_dir;
    st.local_offsets.emplace(
      local_offset_path(dir, st.opts.instance->client_id, st.opts.cfg.group));
    if (auto err = st.local_offsets->load())
      RMQ_WARN(component, "local offsets not loaded: " << describe(err));
  }
  batch_listener listener;
  if (st.orderly) {
    auto l = st.opts.orderly;
    listener = [l](const std::vector<received_message>& b) {
      return static_cast<uint8_t>(l(b));
    };
  } else {
    auto l = st.opts.concurrent;
    listener = [l](const std::vector<received_message>& b) {
      return static_cast<uint8_t>(l(b));
    };
  }
  auto n = std::max(1, st.opts.cfg.consume_threads);
  auto slice
    = static_cast<size_t>(std::max<int32_t>(1, st.opts.cfg.consume_batch_max));
  for (int i = 0; i < n; ++i) {
    auto w = st.opts.detached
               ? self->spawn<caf::detached>(consume_worker, listener, slice)
               : self->spawn(consume_worker, listener, slice);
    st.workers.push_back(w);
    st.idle.push_back(w);
  }
  // State is gone when attached functors run: keep a copy of the handles.
  auto workers = st.workers;
  self->attach_functor([workers](const caf::error&) {
    for (auto& w : workers)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  auto now = self->clock().now();
  st.next_persist = now + st.opts.cfg.persist_interval;
  arm(self, st.next_persist);
  if (needs_lock(self)) {
    st.next_lock = now + st.opts.cfg.lock_renew_interval;
    arm(self, st.next_lock);
  }
  // Lost brokers are pushed to us (their pulls in flight fail at once).
  self->send(st.opts.instance->directory, caf::subscribe_atom::value,
             caf::actor_cast<peer_listener_actor>(self));
  register_group(self);
  return {
    [self](assign_atom, const queue_assignment& a) { assign(self, a); },
    [self](shutdown_atom) -> caf::typed_response_promise<caf::ok_atom> {
      auto& st = self->state;
      auto rp = self->make_response_promise<caf::ok_atom>();
      st.shutdown_waiters.push_back(rp);
      if (st.stopping)
        return rp;
      st.stopping = true;
      auto& inst = *st.opts.instance;
      if (st.opts.rebalance && inst.rebalance)
        self->send(inst.rebalance, caf::delete_atom::value,
                   caf::actor_cast<rebalance_target_actor>(self));
      // Batches no worker took yet stay in their process queues: the
      // commit offset does not pass them, the next owner reads them.
      st.jobs.clear();
      st.later.clear();
      st.shutdown_deadline = self->clock().now() + st.opts.shutdown_wait;
      arm(self, st.shutdown_deadline);
      maybe_finish_shutdown(self);
      return rp;
    },
    [self](peer_lost_atom, const std::string& addr) {
      // CAF 0.17 leaves a request to a lost peer to its timeout (30 s for
      // a long poll): fail the pulls in flight there now, so that they
      // back off and pull again once the directory reconnects.
      RMQ_DEBUG(component, "lost " << addr);
      forget_master(self, addr);
      for (auto& [mq, q] : self->state.queues)
        if (q.pulling && q.pull_addr == addr)
          give_up_pull(self, q);
    },
    [self](caf::tick_atom) { on_tick(self); },
    dump_handler(self),
  };
}

caf::expected<push_consumer_actor>
spawn_push_consumer_actor(caf::actor_system& sys, push_consumer_options opts) {
  auto& cfg = opts.cfg;
  // RocketMQ checkConfig: Validators.checkGroup.
  if (auto err = check_group(cfg.group))
    return err;
  if (cfg.subscriptions.empty())
    return make_error(errc::invalid_parameter, "no subscription");
  if (static_cast<bool>(opts.concurrent) == static_cast<bool>(opts.orderly))
    return make_error(errc::invalid_parameter, "give exactly one listener");
  if (!opts.instance)
    return make_error(errc::invalid_parameter, "no client instance");
  for (auto& s : cfg.subscriptions) {
    if (s.topic.empty())
      return make_error(errc::invalid_parameter, "empty topic");
    auto expr = parse_subscription_expression(s.expression);
    if (!expr)
      return expr.error();
  }
  if (cfg.model == message_model::broadcasting && opts.detached)
    // The local offsets file is read and written by the consumer itself.
    return sys.spawn<caf::detached>(push_consumer_impl, std::move(opts));
  return sys.spawn(push_consumer_impl, std::move(opts));
}

} // namespace rmq
