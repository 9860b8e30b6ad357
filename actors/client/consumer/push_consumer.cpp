#include "actors/client/consumer/push_consumer.hpp"
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

namespace rmq {

const char* push_consumer_state::name = "push_consumer";

namespace push_consumer_detail {

std::string to_text(const message_queue& mq) {
  return mq.topic + "@" + mq.broker_name + ":" + std::to_string(mq.queue_id);
}

// Wall-clock data (the default consume timestamp, sub_version), not a
// timer: the actor clock has no epoch.
int64_t wall_ms(const push_consumer_options& opts) {
  return opts.wall_clock.now_ms();
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

/// The master of `mq`'s broker (actors/client/instance/master_lookup.hpp).
void with_queue_master(self_ptr self, const message_queue& mq, master_found f,
                       master_failed fail) {
  auto& st = self->state;
  with_master_at(self, *st.opts.instance, st.masters, mq,
                 st.opts.request_timeout, std::move(f), std::move(fail));
}

void with_master(self_ptr self, const message_queue& mq,
                 std::function<void(client_broker_actor)> f,
                 master_failed fail) {
  with_queue_master(
    self, mq,
    [f](client_broker_actor hdl, const std::string&) { f(std::move(hdl)); },
    std::move(fail));
}

void with_lock_master(self_ptr self, const message_queue& mq,
                      std::function<void(client_broker_actor)> f,
                      master_failed fail) {
  auto& st = self->state;
  with_master_at(
    self, *st.opts.instance, st.masters, mq, st.opts.request_timeout,
    [f](client_broker_actor hdl, const std::string&) { f(std::move(hdl)); },
    std::move(fail), true);
}

/// A request to `addr` failed or its connection went: resolve its broker
/// again next time.
void forget_master(self_ptr self, const std::string& addr) {
  self->state.masters.forget_address(addr);
}

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

/// Commits the commit offsets of `queues` (those that have one) to their
/// masters (clustering) or into the local offsets file (broadcasting),
/// through actors/client/consumer/offset_commit.hpp; `done` once every one
/// was answered.
void commit_queues(self_ptr self, const std::vector<push_queue*>& queues,
                   std::function<void()> done) {
  auto& st = self->state;
  std::vector<queue_offset> work;
  auto generations = std::make_shared<std::map<message_queue, int64_t>>();
  for (auto q : queues)
    if (auto off = q->pq.commit_offset()) {
      work.push_back(queue_offset{q->mq, *off});
      (*generations)[q->mq] = q->generation;
    }
  if (work.empty() || (!clustering(self) && !st.local_offsets)) {
    done();
    return;
  }
  offset_commit_target t;
  t.instance = st.opts.instance.get();
  t.masters = &st.masters;
  t.local = clustering(self) ? nullptr : &*st.local_offsets;
  t.group = st.opts.cfg.group;
  t.timeout = st.opts.request_timeout;
  t.component = component;
  commit_offsets(
    self, t, std::move(work),
    [self, generations](const queue_offset& c) {
      ++self->state.commits;
      if (auto q = find_queue(self, c.mq, generations->at(c.mq)))
        q->last_committed = c.offset;
    },
    [self](const queue_offset&, const caf::error&) {
      ++self->state.commit_failures;
    },
    std::move(done));
}

void commit_queue(self_ptr self, push_queue& q, std::function<void()> done) {
  commit_queues(self, {&q}, std::move(done));
}

/// Commits every queue; `done` once all answered.
void commit_all(self_ptr self, std::function<void()> done) {
  std::vector<push_queue*> all;
  for (auto& kvp : self->state.queues)
    all.push_back(&kvp.second);
  commit_queues(self, all, std::move(done));
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
  hand_out(self);
}

} // namespace push_consumer_detail

using namespace push_consumer_detail;

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
