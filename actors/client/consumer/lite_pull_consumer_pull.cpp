// The lite pull consumer's pulls (RocketMQ DefaultLitePullConsumerImpl
// PullTaskImpl): where each queue starts, one pull at a time per queue,
// the poll buffer; actors/client/consumer/lite_pull_consumer_parts.hpp.
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

namespace rmq::lite_pull_detail {

// -- pulling ---------------------------------------------------------------------

/// The queue entry if it is still the one of `generation`.
lite_pull_queue* current(lite_ptr self, const message_queue& mq,
                         uint64_t generation) {
  auto i = self->state.queues.find(mq);
  if (i == self->state.queues.end() || i->second.generation != generation)
    return nullptr;
  return &i->second;
}

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
  auto delay = self->state.opts.cfg.pull_backoff;
  q.backing_off = true;
  q.retry_at = self->clock().now() + delay;
  self->delayed_send(self, delay, tick_atom::value);
}

/// The start offset is known: pull from it.
void started(lite_ptr self, const message_queue& mq, uint64_t generation,
             int64_t offset) {
  auto q = current(self, mq, generation);
  if (q == nullptr)
    return;
  q->starting = false;
  q->next_pull = offset;
  if (q->consumed < 0)
    q->consumed = offset;
  pump(self);
}

/// No stored offset: the consume-from rule, with its broker lookup.
void start_by_rule(lite_ptr self, const message_queue& mq,
                   uint64_t generation) {
  auto& cfg = self->state.opts.cfg;
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
    if (auto q = current(self, mq, generation)) {
      q->starting = false;
      back_off(self, *q, err, "start offset");
    }
  };
  if (!plan) {
    fail(plan.error());
    return;
  }
  if (plan->lookup == start_lookup::none) {
    started(self, mq, generation, plan->offset);
    return;
  }
  auto p = *plan;
  auto finish = [=](int64_t looked_up) {
    if (auto off = finish_start(p, looked_up))
      started(self, mq, generation, *off);
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
  auto generation = q.generation;
  auto& st = self->state;
  if (st.local_offsets) {
    auto stored = st.local_offsets->read_from_file(mq);
    if (!stored) {
      q.starting = false;
      back_off(self, q, stored.error(), "local offset");
      return;
    }
    if (*stored) {
      started(self, mq, generation, **stored);
      return;
    }
    start_by_rule(self, mq, generation);
    return;
  }
  auto group = st.opts.cfg.group;
  with_broker(self, mq, [=](caf::expected<client_broker_actor> b) {
    auto fail = [=](const caf::error& err) {
      if (auto q = current(self, mq, generation)) {
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
      .then([=](int64_t off) { started(self, mq, generation, off); },
            [=](const caf::error& err) {
              if (err == errc::query_not_found)
                start_by_rule(self, mq, generation);
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
    if (auto q = current(self, batch.mq, batch.generation)) {
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

void handle_pull(lite_ptr self, const message_queue& mq, uint64_t generation,
                 pull_message_result& res) {
  auto q = current(self, mq, generation);
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
        st.buffer.push_back(lite_pull_batch{mq, generation, std::move(kept)});
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
  auto& cfg = self->state.opts.cfg;
  q.in_flight = true;
  ++q.pulls;
  auto mq = q.mq;
  auto generation = q.generation;
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
    auto q = current(self, mq, generation);
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
      q->pull_from = 0; // a suggested slave may be the one gone
      if (err == errc::system_busy)
        // E.g. a damaged consume queue the broker is rebuilding.
        RMQ_WARN(component, "pull of "
                              << mq.topic << ":" << mq.queue_id << " at offset "
                              << q->next_pull
                              << " refused, pulling again: " << describe(err));
      back_off(self, *q, err, "pull");
    }
  };
  with_broker_at(
    self, mq,
    [=](caf::expected<client_broker_actor> b, const std::string& addr) {
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
              q->pull_from = res.suggest_which_broker_id;
              handle_pull(self, mq, generation, res);
            }
          },
          fail);
    },
    q.pull_from);
}

/// Starts or pulls every queue that may: no pull in flight, no back-off,
/// room in the buffer (RocketMQ pullThresholdForAll) and in the queue's
/// share (pullThresholdForQueue / SizeForQueue).
void pump(lite_ptr self) {
  auto& st = self->state;
  if (st.shutting_down)
    return;
  auto& cfg = st.opts.cfg;
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

} // namespace rmq::lite_pull_detail
