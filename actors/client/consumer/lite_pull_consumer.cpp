#include "actors/client/consumer/lite_pull_consumer.hpp"

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

#include "actors/common/dump.hpp"

namespace rmq {

const char* lite_pull_consumer_state::name = "lite_pull_consumer";

namespace {

constexpr const char* component = "lite_pull_consumer";

using lite_ptr
  = lite_pull_consumer_actor::stateful_pointer<lite_pull_consumer_state>;

using broker_callback = std::function<void(caf::expected<client_broker_actor>)>;

/// Also gets the broker's address (empty on failure).
using broker_at_callback
  = std::function<void(caf::expected<client_broker_actor>, const std::string&)>;

int64_t wall_ms(lite_ptr self) {
  auto& f = self->state.setup.wall_clock_ms;
  if (f)
    return f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

caf::timespan request_timeout(lite_ptr self) {
  return self->state.setup.cfg.client.request_timeout;
}

/// The master of `mq`'s broker, connected through the directory.
void with_broker_at(lite_ptr self, const message_queue& mq,
                    broker_at_callback k) {
  if (auto known = self->state.masters.find(mq.broker_name)) {
    auto [addr, hdl] = *known;
    k(std::move(hdl), addr);
    return;
  }
  auto& inst = *self->state.setup.instance;
  auto directory = inst.directory;
  auto connect_timeout = self->state.setup.cfg.client.connect_timeout
                         + std::chrono::seconds{1};
  auto failed = [k](const caf::error& err) {
    k(caf::expected<client_broker_actor>{err}, std::string{});
  };
  self->request(inst.routes, request_timeout(self), route_atom::value, mq.topic)
    .then(
      [=](topic_route_data& route) {
        std::string addr;
        for (auto& b : route.broker_datas)
          if (b.broker_name == mq.broker_name)
            if (auto i = b.broker_addrs.find(master_id);
                i != b.broker_addrs.end())
              addr = i->second;
        if (addr.empty()) {
          k(make_error(errc::service_not_available,
                       "no master for broker " + mq.broker_name),
            std::string{});
          return;
        }
        self
          ->request(directory, connect_timeout, caf::connect_atom::value, addr)
          .then(
            [self, k, addr, name = mq.broker_name](client_broker_actor& b) {
              self->state.masters.put(name, addr, b);
              k(std::move(b), addr);
            },
            failed);
      },
      failed);
}

void with_broker(lite_ptr self, const message_queue& mq, broker_callback k) {
  with_broker_at(self, mq,
                 [k](caf::expected<client_broker_actor> b, const std::string&) {
                   k(std::move(b));
                 });
}

/// The queue entry if it is still the one of `epoch`.
lite_pull_queue* current(lite_ptr self, const message_queue& mq,
                         uint64_t epoch) {
  auto i = self->state.queues.find(mq);
  if (i == self->state.queues.end() || i->second.epoch != epoch)
    return nullptr;
  return &i->second;
}

void pump(lite_ptr self);

/// Waits pull_backoff before the queue's next attempt.
void back_off(lite_ptr self, lite_pull_queue& q, const caf::error& err,
              const char* what) {
  ++q.failures;
  q.last_error = describe(err);
  log_request_failure(component,
                      std::string{what} + " of " + q.mq.topic + "@"
                        + q.mq.broker_name + ":"
                        + std::to_string(q.mq.queue_id),
                      err);
  auto delay = self->state.setup.cfg.pull_backoff;
  q.backing_off = true;
  q.retry_at = self->clock().now() + delay;
  self->delayed_send(self, delay, tick_atom::value);
}

/// The start offset is known: pull from it.
void started(lite_ptr self, const message_queue& mq, uint64_t epoch,
             int64_t offset) {
  auto q = current(self, mq, epoch);
  if (q == nullptr)
    return;
  q->starting = false;
  q->next_pull = offset;
  if (q->consumed < 0)
    q->consumed = offset;
  pump(self);
}

/// No stored offset: the consume-from rule, with its broker lookup.
void start_by_rule(lite_ptr self, const message_queue& mq, uint64_t epoch) {
  auto& cfg = self->state.setup.cfg;
  int64_t ts = 0;
  if (cfg.from_where == consume_from_where::consume_from_timestamp) {
    if (cfg.consume_timestamp.empty()) {
      ts = default_consume_timestamp(wall_ms(self));
    } else if (auto t = parse_consume_timestamp(cfg.consume_timestamp)) {
      ts = *t;
    } else {
      ts = default_consume_timestamp(wall_ms(self));
    }
  }
  auto plan = plan_start(cfg.from_where, mq.topic, -1, ts);
  auto fail = [=](const caf::error& err) {
    if (auto q = current(self, mq, epoch)) {
      q->starting = false;
      back_off(self, *q, err, "start offset");
    }
  };
  if (!plan) {
    fail(plan.error());
    return;
  }
  if (plan->lookup == start_lookup::none) {
    started(self, mq, epoch, plan->offset);
    return;
  }
  auto p = *plan;
  auto finish = [=](int64_t looked_up) {
    if (auto off = finish_start(p, looked_up))
      started(self, mq, epoch, *off);
    else
      fail(off.error());
  };
  with_broker(self, mq, [=](caf::expected<client_broker_actor> b) {
    if (!b) {
      fail(b.error());
      return;
    }
    if (p.lookup == start_lookup::max_offset)
      self
        ->request(*b, request_timeout(self),
                  get_offset_request{mq.topic, mq.queue_id})
        .then([=](queue_offsets& x) { finish(x.max_offset); }, fail);
    else
      self
        ->request(*b, request_timeout(self),
                  search_offset_request{mq.topic, mq.queue_id, p.timestamp_ms})
        .then([=](int64_t x) { finish(x); }, fail);
  });
}

/// Looks up where a new queue starts: the group's offset (the broker, or
/// the local file for broadcasting), else the consume-from rule.
void start_queue(lite_ptr self, lite_pull_queue& q) {
  q.starting = true;
  auto mq = q.mq;
  auto epoch = q.epoch;
  auto& st = self->state;
  if (st.local) {
    auto stored = st.local->read_from_file(mq);
    if (!stored) {
      q.starting = false;
      back_off(self, q, stored.error(), "local offset");
      return;
    }
    if (*stored) {
      started(self, mq, epoch, **stored);
      return;
    }
    start_by_rule(self, mq, epoch);
    return;
  }
  auto group = st.setup.cfg.group;
  with_broker(self, mq, [=](caf::expected<client_broker_actor> b) {
    auto fail = [=](const caf::error& err) {
      if (auto q = current(self, mq, epoch)) {
        q->starting = false;
        back_off(self, *q, err, "committed offset");
      }
    };
    if (!b) {
      fail(b.error());
      return;
    }
    query_offset_request req{group, mq.topic, mq.queue_id, true};
    self->request(*b, request_timeout(self), req)
      .then([=](int64_t off) { started(self, mq, epoch, off); },
            [=](const caf::error& err) {
              if (err == errc::query_not_found)
                start_by_rule(self, mq, epoch);
              else
                fail(err);
            });
  });
}

/// Hands the first buffered batch to the oldest waiting poll.
void serve_polls(lite_ptr self) {
  auto& st = self->state;
  while (!st.polls.empty() && !st.buffer.empty()) {
    auto batch = std::move(st.buffer.front());
    st.buffer.pop_front();
    auto n = static_cast<int64_t>(batch.messages.size());
    st.buffered -= n;
    if (auto q = current(self, batch.mq, batch.epoch)) {
      q->buffered -= n;
      for (auto& m : batch.messages)
        q->buffered_bytes -= static_cast<int64_t>(m.body.size());
      // What poll returns counts as consumed.
      q->consumed = batch.messages.back().queue_offset + 1;
    }
    st.polls.front().rp.deliver(std::move(batch.messages));
    st.polls.erase(st.polls.begin());
  }
  // A drained buffer lets paused queues pull again.
  pump(self);
}

void handle_pull(lite_ptr self, const message_queue& mq, uint64_t epoch,
                 pull_message_result& res) {
  auto q = current(self, mq, epoch);
  if (q == nullptr)
    return;
  q->in_flight = false;
  auto& st = self->state;
  switch (static_cast<pull_status>(res.status)) {
    case pull_status::found: {
      auto pulled = decode_pulled(res, mq.broker_name);
      if (!pulled) {
        back_off(self, *q, pulled.error(), "decode of a pull");
        return;
      }
      if (pulled->cut_at >= 0) {
        // The rest comes again with the next pull.
        RMQ_WARN(component, "pull of " << mq.topic << ":" << mq.queue_id
                                       << " broke off at offset "
                                       << pulled->cut_at << " ("
                                       << pulled->cut_why
                                       << "): pulling again from there");
        res.next_begin_offset = pulled->cut_at;
      }
      // A lite pull consumer has no send-back: what no program can decode
      // is skipped, said at WARN (docs/reliability.md, "Undecodable
      // messages").
      for (auto& bad : pulled->undecodable) {
        ++q->undecodable;
        RMQ_WARN(component, "message " << bad.header.msg_id << " at "
                                       << mq.topic << ":" << mq.queue_id
                                       << " offset " << bad.header.queue_offset
                                       << " cannot be decoded (" << bad.why
                                       << "): skipped");
      }
      auto& expr = st.expressions[mq.topic];
      std::vector<received_message> kept;
      for (auto& m : pulled->messages) {
        if (expr.matches(m.tags))
          kept.push_back(std::move(m));
        else
          ++q->filtered;
      }
      q->found += static_cast<int64_t>(kept.size());
      if (!kept.empty()) {
        auto n = static_cast<int64_t>(kept.size());
        q->buffered += n;
        for (auto& m : kept)
          q->buffered_bytes += static_cast<int64_t>(m.body.size());
        st.buffered += n;
        st.buffer.push_back(lite_pull_batch{mq, epoch, std::move(kept)});
      } else if (q->buffered == 0) {
        // Only filtered messages and nothing waiting: they count as
        // consumed, so a commit does not hold them back.
        q->consumed = std::max(q->consumed, res.next_begin_offset);
      }
      break;
    }
    case pull_status::offset_illegal:
      RMQ_WARN(component, "offset " << q->next_pull << " illegal for "
                                    << mq.topic << ":" << mq.queue_id
                                    << ", moving to " << res.next_begin_offset);
      if (q->buffered == 0)
        q->consumed = res.next_begin_offset;
      break;
    default:
      if (q->buffered == 0)
        q->consumed = std::max(q->consumed, res.next_begin_offset);
      break;
  }
  q->next_pull = res.next_begin_offset;
  serve_polls(self);
}

void pull_queue(lite_ptr self, lite_pull_queue& q) {
  auto& cfg = self->state.setup.cfg;
  q.in_flight = true;
  ++q.pulls;
  auto mq = q.mq;
  auto epoch = q.epoch;
  pull_message_request req;
  req.consumer_group = cfg.group;
  req.topic = mq.topic;
  req.queue_id = mq.queue_id;
  req.queue_offset = q.next_pull;
  req.max_msg_nums = cfg.pull_batch_size;
  req.sys_flag = pull_sys_flag::suspend | pull_sys_flag::subscription;
  req.suspend_timeout_ms
    = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.suspend_timeout)
        .count();
  req.subscription = self->state.expressions[mq.topic].sub_string;
  auto timeout = cfg.pull_timeout;
  auto seq = ++q.pull_seq;
  // Only the pull in flight counts: one given up on a lost connection was
  // already failed and backed off.
  auto in_flight = [=]() -> lite_pull_queue* {
    auto q = current(self, mq, epoch);
    return q != nullptr && q->in_flight && q->pull_seq == seq ? q : nullptr;
  };
  auto fail = [=](const caf::error& err) {
    if (auto q = in_flight()) {
      q->in_flight = false;
      auto addr = std::exchange(q->pull_addr, std::string{});
      if (err == errc::corrupt_data) {
        // The record at next_pull is damaged in the broker's store (it
        // refuses only a read that starts at one): nobody can consume it.
        ++q->undecodable;
        RMQ_WARN(component, "message at " << mq.topic << ":" << mq.queue_id
                                          << " offset " << q->next_pull
                                          << " is damaged in its broker's "
                                             "store ("
                                          << describe(err) << "): skipped");
        ++q->next_pull;
        if (q->buffered == 0)
          q->consumed = std::max(q->consumed, q->next_pull);
        pump(self);
        return;
      }
      if (!addr.empty())
        self->state.masters.forget_address(addr);
      if (err == errc::system_busy)
        // E.g. a damaged consume queue the broker is rebuilding.
        RMQ_WARN(component, "pull of "
                              << mq.topic << ":" << mq.queue_id << " at offset "
                              << q->next_pull
                              << " refused, pulling again: " << describe(err));
      back_off(self, *q, err, "pull");
    }
  };
  with_broker_at(self, mq,
                 [=](caf::expected<client_broker_actor> b,
                     const std::string& addr) {
                   if (!b) {
                     fail(b.error());
                     return;
                   }
                   if (auto q = in_flight())
                     q->pull_addr = addr;
                   else
                     return;
                   self->request(*b, timeout, req)
                     .then(
                       [=](pull_message_result& res) {
                         if (auto q = in_flight()) {
                           q->pull_addr.clear();
                           handle_pull(self, mq, epoch, res);
                         }
                       },
                       fail);
                 });
}

/// Starts or pulls every queue that may: no pull in flight, no back-off,
/// room in the buffer (RocketMQ pullThresholdForAll) and in the queue's
/// share (pullThresholdForQueue / SizeForQueue).
void pump(lite_ptr self) {
  auto& st = self->state;
  if (st.shutting_down)
    return;
  auto& cfg = st.setup.cfg;
  for (auto& [mq, q] : st.queues) {
    if (q.in_flight || q.starting || q.backing_off || q.dropping)
      continue;
    if (q.next_pull < 0) {
      start_queue(self, q);
      continue;
    }
    if (st.buffered >= static_cast<int64_t>(cfg.buffer_max_messages)
        || q.buffered >= cfg.limits.max_count
        || q.buffered_bytes >= cfg.limits.max_bytes) {
      ++st.flow_control_pauses;
      continue;
    }
    pull_queue(self, q);
  }
}

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
  if (st.local) {
    std::vector<message_queue> written;
    for (auto& [mq, off] : work) {
      st.local->update(mq, off);
      written.push_back(mq);
    }
    auto err = st.local->persist(written);
    if (err) {
      ++st.commit_failures;
      log_request_failure(component, "local offsets", err);
    } else {
      for (auto& [mq, off] : work)
        st.queues[mq].committed = off;
    }
    done(err);
    return;
  }
  struct progress {
    size_t pending;
    caf::error first;
  };
  auto pr = std::make_shared<progress>(progress{work.size(), {}});
  auto one_done = [self, pr, done](const caf::error& err) {
    if (err) {
      ++self->state.commit_failures;
      if (!pr->first)
        pr->first = err;
    }
    if (--pr->pending == 0)
      done(pr->first);
  };
  auto group = st.setup.cfg.group;
  for (auto& [mq, off] : work) {
    auto queue = mq;
    auto offset = off;
    with_broker(self, queue, [=](caf::expected<client_broker_actor> b) {
      auto fail = [=](const caf::error& err) {
        log_request_failure(component,
                            "commit of " + queue.topic + ":"
                              + std::to_string(queue.queue_id),
                            err);
        one_done(err);
      };
      if (!b) {
        fail(b.error());
        return;
      }
      update_offset_request req{group, queue.topic, queue.queue_id, offset};
      self->request(*b, request_timeout(self), req)
        .then(
          [=](caf::ok_atom) {
            auto i = self->state.queues.find(queue);
            if (i != self->state.queues.end())
              i->second.committed = std::max(i->second.committed, offset);
            one_done(caf::error{});
          },
          fail);
    });
  }
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
  q.epoch = st.next_epoch++;
  q.in_flight = false;
  q.dropping = true;
  auto epoch = q.epoch;
  commit_queues(self, {mq}, [self, mq, epoch](caf::error) {
    auto& st = self->state;
    auto i = st.queues.find(mq);
    if (i != st.queues.end() && i->second.epoch == epoch) {
      st.queues.erase(i);
      if (st.local)
        st.local->remove(mq);
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
    q.epoch = st.next_epoch++;
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
  auto& cfg = st.setup.cfg;
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
  auto& cfg = self->state.setup.cfg;
  consumer_data cd;
  cd.group_name = cfg.group;
  cd.type = consume_type::consume_actively;
  cd.model = cfg.model;
  cd.from_where = cfg.from_where;
  self
    ->request(self->state.setup.instance->heartbeats, request_timeout(self) * 2,
              consumer_atom::value, cd)
    .then([self](caf::ok_atom) { self->state.registered = true; },
          [](const caf::error& err) {
            log_request_failure(component, "consumer group heartbeat", err);
          });
}

void register_consumer(lite_ptr self) {
  auto& st = self->state;
  auto& cfg = st.setup.cfg;
  auto inst = st.setup.instance;
  auto pending = std::make_shared<size_t>(cfg.subscriptions.size());
  auto after_routes = [self, inst] {
    auto& st = self->state;
    auto& cfg = st.setup.cfg;
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
  q.epoch = st.next_epoch++;
  q.in_flight = false;
  q.starting = false;
  q.backing_off = false;
  q.next_pull = offset;
  q.consumed = offset;
  pump(self);
  return true;
}

} // namespace

lite_pull_consumer_actor::behavior_type lite_pull_consumer_main(
  lite_pull_consumer_actor::stateful_pointer<lite_pull_consumer_state> self,
  lite_pull_consumer_setup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  auto& cfg = st.setup.cfg;
  st.subscribe_mode = cfg.assigned.empty();
  for (auto& s : cfg.subscriptions) {
    auto expr = parse_subscription_expression(s.expression);
    // The facade checked the expressions; a bad one reads everything.
    st.expressions[s.topic] = expr ? *expr : subscription_expression{};
  }
  if (cfg.model == message_model::broadcasting) {
    auto dir = cfg.offset_dir.empty() ? default_local_offset_dir()
                                      : cfg.offset_dir;
    st.local.emplace(
      local_offset_path(dir, st.setup.instance->client_id, cfg.group));
    if (auto err = st.local->load())
      RMQ_WARN(component,
               "local offsets of " << cfg.group << ": " << describe(err));
  }
  if (cfg.auto_commit) {
    st.next_commit = self->clock().now() + cfg.persist_interval;
    self->delayed_send(self, cfg.persist_interval, tick_atom::value);
  }
  // Lost brokers are pushed to us (their pulls in flight fail at once).
  self->send(st.setup.instance->directory, caf::subscribe_atom::value,
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
      auto inst = st.setup.instance;
      auto group = st.setup.cfg.group;
      auto was_subscribed = st.subscribe_mode
                            && !st.setup.cfg.subscriptions.empty();
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
    {"group", setup.cfg.group},
    {"client_id", setup.instance ? setup.instance->client_id : ""},
    {"mode", subscribe_mode ? "subscribe" : "assign"},
    {"model", setup.cfg.model},
    {"queues", qs},
    {"masters", masters.size()},
    {"buffered", buffered},
    {"buffer_max_messages", setup.cfg.buffer_max_messages},
    {"waiting_polls", polls.size()},
    {"registered", registered},
    {"commits", commits},
    {"commit_failures", commit_failures},
    {"flow_control_pauses", flow_control_pauses},
    {"assignments", assignments},
  };
}

} // namespace rmq
