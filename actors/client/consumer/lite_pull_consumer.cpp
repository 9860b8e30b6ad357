#include "actors/client/consumer/lite_pull_consumer.hpp"
#include "actors/client/consumer/lite_pull_consumer_parts.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/consume_from.hpp"
#include "runtime/client/received_message.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/client/consumer/offset_commit.hpp"
#include "actors/client/instance/master_lookup.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* lite_pull_consumer_state::name = "lite_pull_consumer";

namespace lite_pull_detail {

int64_t wall_ms(lite_ptr self) {
  return self->state.opts.wall_clock.now_ms();
}

caf::timespan request_timeout(lite_ptr self) {
  return self->state.opts.cfg.client.request_timeout;
}

/// The master of `mq`'s broker (actors/client/instance/master_lookup.hpp).
void with_broker_at(lite_ptr self, const message_queue& mq,
                    broker_at_callback k, int64_t prefer) {
  auto& st = self->state;
  with_master_at(
    self, *st.opts.instance, st.masters, mq, request_timeout(self),
    [k](client_broker_actor hdl, const std::string& addr) {
      k(std::move(hdl), addr);
    },
    [k](const caf::error& err) {
      k(caf::expected<client_broker_actor>{err}, std::string{});
    },
    false, prefer);
}

void with_broker(lite_ptr self, const message_queue& mq, broker_callback k) {
  with_broker_at(self, mq,
                 [k](caf::expected<client_broker_actor> b, const std::string&) {
                   k(std::move(b));
                 });
}

// -- offsets and assignment -------------------------------------------------------

/// Commits the consumed offsets of `mqs` (those that moved); `done` gets
/// the first failure, if any.
void commit_queues(lite_ptr self, const std::vector<message_queue>& mqs,
                   std::function<void(caf::error)> done) {
  auto& st = self->state;
  std::vector<std::pair<message_queue, int64_t>> work;
  for (auto& mq : mqs) {
    auto i = st.queues.find(mq);
    if (i == st.queues.end() || i->second.consumed < 0
        || i->second.consumed == i->second.committed)
      continue;
    work.emplace_back(mq, i->second.consumed);
  }
  if (work.empty()) {
    done(caf::error{});
    return;
  }
  ++st.commits;
  offset_commit_target t;
  t.instance = st.opts.instance.get();
  t.masters = &st.masters;
  t.local = st.local_offsets ? &*st.local_offsets : nullptr;
  t.group = st.opts.cfg.group;
  t.timeout = request_timeout(self);
  t.component = component;
  std::vector<queue_offset> offsets;
  for (auto& [mq, off] : work)
    offsets.push_back(queue_offset{mq, off});
  auto first = std::make_shared<caf::error>();
  commit_offsets(
    self, t, std::move(offsets),
    [self](const queue_offset& c) {
      auto i = self->state.queues.find(c.mq);
      if (i != self->state.queues.end())
        i->second.committed = std::max(i->second.committed, c.offset);
    },
    [self, first](const queue_offset&, const caf::error& err) {
      ++self->state.commit_failures;
      if (!*first)
        *first = err;
    },
    [first, done] { done(*first); });
}

std::vector<message_queue> owned(lite_ptr self) {
  std::vector<message_queue> xs;
  for (auto& [mq, q] : self->state.queues)
    if (!q.dropping)
      xs.push_back(mq);
  return xs;
}

/// Takes a queue's messages out of the poll buffer.
void drop_buffered(lite_pull_consumer_state& st, const message_queue& mq) {
  auto& buf = st.buffer;
  for (auto j = buf.begin(); j != buf.end();) {
    if (!(j->mq < mq) && !(mq < j->mq)) {
      st.buffered -= static_cast<int64_t>(j->messages.size());
      j = buf.erase(j);
    } else {
      ++j;
    }
  }
}

/// Stops reading `mq`: its buffered messages go, its offset is committed
/// first (RocketMQ removeUnnecessaryMessageQueue).
void drop_queue(lite_ptr self, const message_queue& mq) {
  auto& st = self->state;
  auto i = st.queues.find(mq);
  if (i == st.queues.end() || i->second.dropping)
    return;
  // Nothing of it is polled any more, committed or not.
  drop_buffered(st, mq);
  auto& q = i->second;
  q.buffered = 0;
  q.buffered_bytes = 0;
  // Answers of its pulls are ignored from now on.
  q.generation = st.next_generation++;
  q.in_flight = false;
  q.dropping = true;
  auto generation = q.generation;
  commit_queues(self, {mq}, [self, mq, generation](caf::error) {
    auto& st = self->state;
    auto i = st.queues.find(mq);
    if (i != st.queues.end() && i->second.generation == generation) {
      st.queues.erase(i);
      if (st.local_offsets)
        st.local_offsets->remove(mq);
    }
  });
}

/// Reads exactly `wanted` among the queues of `topics` (all topics when
/// empty): new ones start, missing ones are dropped.
void reassign(lite_ptr self, const std::vector<message_queue>& wanted,
              const std::set<std::string>& topics) {
  auto& st = self->state;
  ++st.assignments;
  std::set<message_queue> want(wanted.begin(), wanted.end());
  for (auto& mq : owned(self)) {
    if (!topics.empty() && topics.count(mq.topic) == 0)
      continue;
    if (want.count(mq) == 0)
      drop_queue(self, mq);
  }
  for (auto& mq : want) {
    auto i = st.queues.find(mq);
    if (i != st.queues.end() && !i->second.dropping)
      continue;
    // Back while its drop commits: a fresh start from the committed offset.
    if (i != st.queues.end())
      st.queues.erase(i);
    lite_pull_queue q;
    q.mq = mq;
    q.generation = st.next_generation++;
    if (st.expressions.count(mq.topic) == 0)
      st.expressions[mq.topic] = subscription_expression{};
    st.queues.emplace(mq, std::move(q));
  }
  pump(self);
}

/// Expired polls answer empty; back-offs end; auto-commit when due.
void on_tick(lite_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  for (auto i = st.polls.begin(); i != st.polls.end();) {
    if (i->deadline <= now) {
      i->rp.deliver(std::vector<received_message>{});
      i = st.polls.erase(i);
    } else {
      ++i;
    }
  }
  for (auto& [mq, q] : st.queues)
    if (q.backing_off && q.retry_at <= now)
      q.backing_off = false;
  auto& cfg = st.opts.cfg;
  if (cfg.auto_commit && !st.shutting_down && now >= st.next_commit) {
    // One chain of commit timers: only the tick that commits re-arms.
    st.next_commit = now + cfg.persist_interval;
    self->delayed_send(self, cfg.persist_interval, tick_atom::value);
    commit_queues(self, owned(self), [](caf::error) {});
  }
  pump(self);
}

/// Subscribe mode: routes first (so that the first heartbeat round reaches
/// the topic's brokers), then the group's heartbeat, then the rebalance.
/// Assign mode: the group goes into the heartbeats with no subscriptions
/// (RocketMQ's registerConsumer at start; ASSIGN has none), so brokers
/// list the client in it, and no rebalance.
void register_assigned(lite_ptr self) {
  auto& cfg = self->state.opts.cfg;
  consumer_data cd;
  cd.group_name = cfg.group;
  cd.type = consume_type::consume_actively;
  cd.model = cfg.model;
  cd.from_where = cfg.from_where;
  self
    ->request(self->state.opts.instance->heartbeats, request_timeout(self) * 2,
              consumer_atom::value, cd)
    .then([self](caf::ok_atom) { self->state.registered = true; },
          [](const caf::error& err) {
            log_request_failure(component, "consumer group heartbeat", err);
          });
}

void register_consumer(lite_ptr self) {
  auto& st = self->state;
  auto& cfg = st.opts.cfg;
  auto inst = st.opts.instance;
  auto pending = std::make_shared<size_t>(cfg.subscriptions.size());
  auto after_routes = [self, inst] {
    auto& st = self->state;
    auto& cfg = st.opts.cfg;
    consumer_data cd;
    cd.group_name = cfg.group;
    cd.type = consume_type::consume_actively;
    cd.model = cfg.model;
    cd.from_where = cfg.from_where;
    auto version = wall_ms(self);
    for (auto& s : cfg.subscriptions)
      cd.subscriptions.push_back(
        make_subscription_data(s.topic, st.expressions[s.topic], version));
    rebalance_subscription rs;
    rs.group = cfg.group;
    rs.model = cfg.model;
    rs.strategy = cfg.allocate_strategy;
    for (auto& s : cfg.subscriptions)
      rs.topics.push_back(s.topic);
    auto to_rebalance = [self, inst, rs] {
      self
        ->request(inst->rebalance, request_timeout(self), caf::put_atom::value,
                  rs, caf::actor_cast<rebalance_target_actor>(self))
        .then([self](caf::ok_atom) { self->state.registered = true; },
              [](const caf::error& err) {
                log_request_failure(component, "rebalance registration", err);
              });
    };
    self
      ->request(inst->heartbeats, request_timeout(self) * 2,
                consumer_atom::value, cd)
      .then([to_rebalance](caf::ok_atom) { to_rebalance(); },
            [to_rebalance](const caf::error& err) {
              log_request_failure(component, "consumer group heartbeat", err);
              to_rebalance();
            });
  };
  for (auto& s : cfg.subscriptions) {
    self
      ->request(inst->routes, request_timeout(self), route_atom::value, s.topic)
      .then(
        [pending, after_routes](topic_route_data&) {
          if (--*pending == 0)
            after_routes();
        },
        [pending, after_routes, topic = s.topic](const caf::error& err) {
          log_request_failure(component, "route of " + topic, err);
          if (--*pending == 0)
            after_routes();
        });
  }
}

/// Moves an owned queue to `offset`: its buffered messages are dropped and
/// answers of earlier pulls ignored. False when the queue is not owned.
bool seek_to(lite_ptr self, const message_queue& mq, int64_t offset) {
  auto& st = self->state;
  auto i = st.queues.find(mq);
  if (i == st.queues.end() || i->second.dropping)
    return false;
  auto& q = i->second;
  drop_buffered(st, mq);
  q.buffered = 0;
  q.buffered_bytes = 0;
  q.generation = st.next_generation++;
  q.in_flight = false;
  q.starting = false;
  q.backing_off = false;
  q.next_pull = offset;
  q.consumed = offset;
  pump(self);
  return true;
}

} // namespace lite_pull_detail

using namespace lite_pull_detail;

lite_pull_consumer_actor::behavior_type lite_pull_consumer_main(
  lite_pull_consumer_actor::stateful_pointer<lite_pull_consumer_state> self,
  lite_pull_consumer_options opts) {
  auto& st = self->state;
  st.opts = std::move(opts);
  auto& cfg = st.opts.cfg;
  st.subscribe_mode = cfg.assigned.empty();
  for (auto& s : cfg.subscriptions) {
    auto expr = parse_subscription_expression(s.expression);
    // The facade checked the expressions; a bad one reads everything.
    st.expressions[s.topic] = expr ? *expr : subscription_expression{};
  }
  if (cfg.model == message_model::broadcasting) {
    auto dir = cfg.offset_dir.empty() ? default_local_offset_dir()
                                      : cfg.offset_dir;
    st.local_offsets.emplace(
      local_offset_path(dir, st.opts.instance->client_id, cfg.group));
    if (auto err = st.local_offsets->load())
      RMQ_WARN(component,
               "local offsets of " << cfg.group << ": " << describe(err));
  }
  if (cfg.auto_commit) {
    st.next_commit = self->clock().now() + cfg.persist_interval;
    self->delayed_send(self, cfg.persist_interval, tick_atom::value);
  }
  // Lost brokers are pushed to us (their pulls in flight fail at once).
  self->send(st.opts.instance->directory, caf::subscribe_atom::value,
             caf::actor_cast<peer_listener_actor>(self));
  if (st.subscribe_mode && !cfg.subscriptions.empty())
    register_consumer(self);
  else if (!st.subscribe_mode) {
    register_assigned(self);
    reassign(self, cfg.assigned, {});
  }
  return {
    [=](assign_atom, const queue_assignment& a) {
      auto& st = self->state;
      if (!st.subscribe_mode || st.shutting_down
          || st.expressions.count(a.topic) == 0)
        return;
      reassign(self, a.queues, {a.topic});
    },
    [=](assign_atom,
        const std::vector<message_queue>& mqs) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      if (mqs.empty())
        return make_error(errc::invalid_parameter,
                          "assign needs at least one queue");
      if (st.subscribe_mode && st.registered)
        return make_error(errc::invalid_parameter,
                          "a subscribing consumer cannot assign queues");
      st.subscribe_mode = false;
      if (!st.registered)
        register_assigned(self);
      reassign(self, mqs, {});
      return caf::ok_atom::value;
    },
    [=](poll_atom, caf::timespan timeout)
      -> caf::typed_response_promise<std::vector<received_message>> {
      auto& st = self->state;
      auto rp = self->make_response_promise<std::vector<received_message>>();
      if (st.shutting_down) {
        rp.deliver(std::vector<received_message>{});
        return rp;
      }
      st.polls.push_back(lite_pull_poll{rp, self->clock().now() + timeout});
      if (!st.buffer.empty()) {
        serve_polls(self);
        return rp;
      }
      self->delayed_send(self, timeout, tick_atom::value);
      return rp;
    },
    [=](seek_atom, const message_queue& mq,
        int64_t offset) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      auto i = st.queues.find(mq);
      if (i == st.queues.end() || i->second.dropping)
        return make_error(errc::invalid_parameter,
                          "seek: the queue is not assigned");
      if (offset < 0)
        return make_error(errc::invalid_parameter, "seek: negative offset");
      // RocketMQ's seek refuses an offset outside [min, max] of the queue.
      auto rp = self->make_response_promise<caf::ok_atom>();
      auto fail = [rp](const caf::error& err) mutable { rp.deliver(err); };
      with_broker(self, mq, [=](caf::expected<client_broker_actor> b) mutable {
        if (!b) {
          fail(b.error());
          return;
        }
        self
          ->request(*b, request_timeout(self),
                    get_offset_request{mq.topic, mq.queue_id})
          .then(
            [=](const queue_offsets& x) mutable {
              if (offset < x.min_offset || offset > x.max_offset) {
                rp.deliver(make_error(
                  errc::invalid_parameter,
                  "seek: offset " + std::to_string(offset) + " is outside ["
                    + std::to_string(x.min_offset) + ", "
                    + std::to_string(x.max_offset) + "] of " + mq.topic + "@"
                    + mq.broker_name + ":" + std::to_string(mq.queue_id)));
                return;
              }
              if (!seek_to(self, mq, offset)) {
                rp.deliver(make_error(errc::invalid_parameter,
                                      "seek: the queue is not assigned"));
                return;
              }
              rp.deliver(caf::ok_atom::value);
            },
            fail);
      });
      return rp;
    },
    [=](commit_atom) -> caf::typed_response_promise<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      commit_queues(self, owned(self), [rp](caf::error err) mutable {
        if (err)
          rp.deliver(std::move(err));
        else
          rp.deliver(caf::ok_atom::value);
      });
      return rp;
    },
    [=](shutdown_atom) -> caf::typed_response_promise<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      auto& st = self->state;
      auto inst = st.opts.instance;
      auto group = st.opts.cfg.group;
      auto was_subscribed = st.subscribe_mode
                            && !st.opts.cfg.subscriptions.empty();
      // Assign mode registered the group in the heartbeats only.
      auto in_heartbeats = was_subscribed || st.registered;
      for (auto& p : st.polls)
        p.rp.deliver(std::vector<received_message>{});
      st.polls.clear();
      commit_queues(self, owned(self), [=](caf::error) mutable {
        self->state.shutting_down = true;
        if (!in_heartbeats) {
          rp.deliver(caf::ok_atom::value);
          self->quit();
          return;
        }
        if (was_subscribed)
          self->send(inst->rebalance, caf::delete_atom::value,
                     caf::actor_cast<rebalance_target_actor>(self));
        self
          ->request(inst->heartbeats, request_timeout(self) * 2,
                    caf::delete_atom::value, consumer_atom::value, group)
          .then(
            [=](caf::ok_atom) mutable {
              rp.deliver(caf::ok_atom::value);
              self->quit();
            },
            [=](const caf::error& err) mutable {
              log_request_failure(component, "unregistration of " + group, err);
              rp.deliver(caf::ok_atom::value);
              self->quit();
            });
      });
      self->state.shutting_down = true;
      return rp;
    },
    [=](peer_lost_atom, const std::string& addr) {
      // CAF 0.17 leaves a request to a lost peer to its timeout (30 s for
      // a long poll): fail the pulls in flight there now.
      RMQ_DEBUG(component, "peer lost: " << addr);
      self->state.masters.forget_address(addr);
      for (auto& [mq, q] : self->state.queues)
        if (q.in_flight && q.pull_addr == addr) {
          q.in_flight = false;
          q.pull_addr.clear();
          back_off(self, q,
                   make_error(errc::service_not_available,
                              "lost the connection to " + addr),
                   "pull");
        }
    },
    [=](tick_atom) { on_tick(self); },
    dump_handler(self),
  };
}

nlohmann::json lite_pull_consumer_state::dump_fields() const {
  auto qs = nlohmann::json::array();
  for (auto& [mq, q] : queues)
    qs.push_back({{"queue", mq},
                  {"next_pull", q.next_pull},
                  {"consumed", q.consumed},
                  {"committed", q.committed},
                  {"buffered", q.buffered},
                  {"in_flight", q.in_flight},
                  {"backing_off", q.backing_off},
                  {"pulls", q.pulls},
                  {"found", q.found},
                  {"filtered", q.filtered},
                  {"undecodable", q.undecodable},
                  {"failures", q.failures},
                  {"last_error", q.last_error}});
  return {
    {"group", opts.cfg.group},
    {"client_id", opts.instance ? opts.instance->client_id : ""},
    {"mode", subscribe_mode ? "subscribe" : "assign"},
    {"model", opts.cfg.model},
    {"queues", qs},
    {"masters", masters.size()},
    {"buffered", buffered},
    {"buffer_max_messages", opts.cfg.buffer_max_messages},
    {"waiting_polls", polls.size()},
    {"registered", registered},
    {"commits", commits},
    {"commit_failures", commit_failures},
    {"flow_control_pauses", flow_control_pauses},
    {"assignments", assignments},
  };
}

} // namespace rmq
