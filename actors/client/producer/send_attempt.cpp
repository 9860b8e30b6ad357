// One send's attempts (RocketMQ DefaultMQProducerImpl#sendDefaultImpl and
// sendKernelImpl): the topic's route, the queue of each attempt, the
// request to its broker's master, retries and the end of the send;
// actors/client/producer/send_loop_parts.hpp.
#include "actors/client/producer/send_loop_parts.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <utility>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/client_message_codec.hpp"
#include "runtime/client/publish_queues.hpp"
#include "runtime/client/queue_selector.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/common/dump.hpp"

namespace rmq::send_loop_detail {

// -- error classes ------------------------------------------------------------

bool is_rmq(const caf::error& err) {
  return err.category() == errc_category;
}

/// RocketMQ's retryResponseCodes, plus every failure of CAF's own (the
/// peer did not answer, went down, or could not be reached).
bool retryable(const caf::error& err) {
  if (!is_rmq(err))
    return true;
  switch (static_cast<errc>(err.code())) {
    case errc::system_busy:
    case errc::topic_not_exist:
    case errc::service_not_available:
    case errc::no_permission:
    case errc::system_error:
    case errc::broker_not_found:
      return true;
    default:
      return false;
  }
}

/// A failure that says the connection is gone (not just slow).
bool connection_lost(const caf::error& err) {
  if (is_rmq(err))
    return false;
  if (err.category() != caf::atom("system"))
    return true;
  switch (static_cast<caf::sec>(err.code())) {
    case caf::sec::request_timeout:
      return false;
    default:
      return true;
  }
}

std::string brokers_text(const std::vector<std::string>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += xs[i];
  }
  return out + "]";
}

/// RocketMQ's "Send [n] times, still failed" error with the last error's
/// code (and category: a CAF timeout stays a CAF timeout).
caf::error all_failed(loop_ptr self, const send_loop_op& op) {
  auto cost = to_ms(self->clock().now() - op.started);
  auto detail = "Send [" + std::to_string(op.attempts)
                + "] times, still failed, cost [" + std::to_string(cost)
                + "]ms, Topic: " + op.topic
                + ", BrokersSent: " + brokers_text(op.brokers_sent);
  if (!op.last_error)
    return caf::error{static_cast<uint8_t>(caf::sec::request_timeout),
                      caf::atom("system"), caf::make_message(detail)};
  if (is_rmq(op.last_error))
    return make_error(static_cast<errc>(op.last_error.code()), detail);
  return caf::error{op.last_error.code(), op.last_error.category(),
                    caf::make_message(detail)};
}
// -- broker handles -----------------------------------------------------------

void with_broker(loop_ptr self, const std::string& addr, caf::timespan timeout,
                 broker_cont f) {
  auto& st = self->state;
  auto i = st.brokers.find(addr);
  if (i != st.brokers.end()) {
    f(i->second);
    return;
  }
  self->request(st.inst.directory, timeout, caf::connect_atom::value, addr)
    .then(
      [=](const client_broker_actor& hdl) {
        self->state.brokers[addr] = hdl;
        f(hdl);
      },
      [=](const caf::error& err) {
        log_request_failure(component, "connect to " + addr, err);
        f(err);
      });
}
// -- ending a send ------------------------------------------------------------

void release_async(send_loop_state& st, const send_loop_op& op) {
  if (op.mode != send_loop_op::kind::async)
    return;
  for (auto n : op.sizes) {
    st.async_messages -= std::min<size_t>(st.async_messages, 1);
    st.async_bytes -= std::min(st.async_bytes, n);
  }
}

void succeed(loop_ptr self, uint64_t id, const send_result& res,
             const message_queue& queue) {
  auto& st = self->state;
  auto i = st.ops.find(id);
  if (i == st.ops.end())
    return;
  auto& op = i->second;
  st.sent += op.uniq_keys.size();
  switch (op.mode) {
    case send_loop_op::kind::sync:
      op.rp.deliver(to_client_result(res, queue));
      break;
    case send_loop_op::kind::oneway:
      break;
    case send_loop_op::kind::async:
      if (!op.auto_batch) {
        op.async_rps.front().deliver(to_client_result(res, queue));
        break;
      }
      // Each caller gets its own message's entry of the batch result.
      auto entries = entries_of(res);
      for (size_t k = 0; k < op.async_rps.size(); ++k) {
        client_send_result one;
        one.status = res.status;
        one.queue = queue;
        if (k < entries.size()) {
          auto& e = entries[k];
          one.msg_id = e.msg_id;
          one.offset_msg_id = e.offset_msg_id;
          one.queue_offset = e.queue_offset;
          one.entries.push_back(std::move(e));
        } else {
          one.msg_id = op.uniq_keys[k];
        }
        op.async_rps[k].deliver(std::move(one));
      }
      break;
  }
  release_async(st, op);
  st.ops.erase(i);
  maybe_finish_stop(self);
}

void fail(loop_ptr self, uint64_t id, const caf::error& err) {
  auto& st = self->state;
  auto i = st.ops.find(id);
  if (i == st.ops.end())
    return;
  auto& op = i->second;
  if (op.not_ok) {
    auto [res, queue] = std::move(*op.not_ok);
    succeed(self, id, res, queue);
    return;
  }
  st.failed += op.uniq_keys.size();
  if (op.mode == send_loop_op::kind::sync)
    op.rp.deliver(err);
  for (auto& rp : op.async_rps)
    rp.deliver(err);
  release_async(st, op);
  st.ops.erase(i);
  maybe_finish_stop(self);
}

/// Retries if attempts and budget remain, else fails with RocketMQ's
/// "still failed" error.
void retry_or_fail(loop_ptr self, uint64_t id) {
  auto& st = self->state;
  auto i = st.ops.find(id);
  if (i == st.ops.end())
    return;
  auto& op = i->second;
  if (!op.fixed_queue && op.attempts < op.attempts_total
      && self->clock().now() < op.deadline) {
    ++st.retried;
    attempt(self, id);
    return;
  }
  if (op.fixed_queue && op.last_error) {
    fail(self, id, op.last_error);
    return;
  }
  fail(self, id, all_failed(self, op));
}
// -- one attempt --------------------------------------------------------------

void report(loop_ptr self, const std::string& broker, caf::timespan latency,
            bool isolation, bool reachable) {
  auto& st = self->state;
  fault_report r{broker, to_ms(latency), isolation, reachable};
  // The local copy learns at once; the table's push overwrites it later.
  // A report that changes nothing here (a fast answer from a broker known
  // available and reachable: nearly every send) would change nothing there
  // either but the latency it shows, so it stays here: one message less to
  // another actor per send.
  if (st.faults.update(r, now_ns(self)))
    self->send(st.inst.faults, std::move(r));
}

void attempt_failed(loop_ptr self, uint64_t id, const std::string& broker,
                    const std::string& addr, time_point begin,
                    const caf::error& err) {
  auto& st = self->state;
  auto latency = self->clock().now() - begin;
  auto i = st.ops.find(id);
  if (i == st.ops.end())
    return;
  auto& op = i->second;
  log_request_failure(component, "send to " + broker + " (" + addr + ")", err);
  if (!is_rmq(err)) {
    // No answer: keep the broker out as RocketMQ does for a
    // RemotingException.
    report(self, broker, latency, true, false);
  } else if (retryable(err)) {
    // The broker answered but cannot take the message now (RocketMQ
    // isolates on every MQBrokerException; we spare the message's own
    // faults).
    report(self, broker, latency, true, true);
  } else {
    report(self, broker, latency, false, true);
  }
  if (connection_lost(err)) {
    st.brokers.erase(addr);
    if (!addr.empty())
      self->send(st.inst.directory, caf::delete_atom::value, addr);
    self->send(st.inst.routes, refresh_atom::value, op.topic);
  } else if (err == errc::topic_not_exist) {
    self->send(st.inst.routes, refresh_atom::value, op.topic);
  }
  op.last_error = err;
  op.last_broker = broker;
  if (!retryable(err) || op.mode == send_loop_op::kind::oneway) {
    fail(self, id, err);
    return;
  }
  retry_or_fail(self, id);
}

/// Whether an async message may wait for its broker and travel in a batch
/// (a batch cannot carry a delay level, a deliver time or delay, or a
/// retry topic).
bool batchable(const send_loop_state& st, const client_message& msg) {
  // A reply goes as SEND_REPLY_MESSAGE, alone; timed messages are never
  // batched (RocketMQ canBatch).
  return st.cfg.auto_batch && msg.delay_level == 0 && !is_reply_message(msg)
         && msg.deliver_time_ms == 0 && msg.delay_ms == 0
         && msg.topic.rfind("%RETRY%", 0) != 0
         && msg.topic.rfind("%DLQ%", 0) != 0;
}

// The queue of the next attempt of `op`: its fixed queue, the queue its
// selector chose (first attempt), else the next one that avoids the last
// broker and, with latency faults on, the brokers still unavailable.
std::optional<message_queue> pick_queue(loop_ptr self, const send_loop_op& op,
                                        send_loop_topic& tp) {
  auto& st = self->state;
  if (op.fixed_queue)
    return *op.fixed_queue;
  if (op.first_queue && op.attempts == 0)
    return *op.first_queue;
  const latency_fault_table* faults = nullptr;
  if (st.inst.config.latency_fault_enable)
    faults = &st.faults;
  auto pick = select_queue(tp.queues, op.last_broker, faults, now_ns(self),
                           tp.index);
  if (!pick)
    return std::nullopt;
  return tp.queues[*pick];
}

// Natural batching: an async message whose broker is busy (has
// batch_partial_in_flight requests out) waits for one to end, then goes
// with the others in one batch. With a linger it also waits for company
// while the broker is idle. Returns whether the op went into a batch.
bool divert_to_batch(loop_ptr self,
                     std::map<uint64_t, send_loop_op>::iterator i,
                     const message_queue& queue) {
  auto& st = self->state;
  auto& op = i->second;
  auto& broker = queue.broker_name;
  auto busy = st.in_flight_by_broker[broker]
              >= std::max<size_t>(1, st.cfg.batch_partial_in_flight);
  auto linger = st.cfg.batch_linger > caf::timespan{0};
  if (op.mode != send_loop_op::kind::async || op.auto_batch || op.attempts != 0
      || op.first_queue || op.msgs.empty() || !batchable(st, op.msgs.front())
      || !(busy || linger) || st.stopping)
    return false;
  queued_async q{std::move(op.msgs.front()),
                 op.uniq_keys.front(),
                 op.sizes.front(),
                 queue,
                 op.deadline,
                 op.async_rps.front()};
  auto topic = op.topic;
  st.ops.erase(i); // the bounds stay counted until the batch answers
  auto& waiting = st.queued[broker][topic];
  waiting.push_back(std::move(q));
  auto full = [&] {
    if (waiting.size() >= st.cfg.batch_max_messages)
      return true;
    size_t bytes = 0;
    for (auto& w : waiting)
      bytes += w.size;
    return bytes >= st.cfg.batch_max_bytes;
  };
  if (busy) {
    // A full batch need not wait for an answer while the broker has
    // room: a few batches in flight keep it busy.
    if (st.in_flight_by_broker[broker] < st.cfg.batch_max_in_flight && full())
      flush_queued(self, broker, false);
    return true;
  }
  if (full()) {
    flush_queued(self, broker, false); // full: no reason to wait
  } else if (st.lingering.insert(broker).second) {
    self->delayed_send(self, st.cfg.batch_linger, caf::tick_atom::value,
                       broker);
  }
  return true;
}

// The broker's answer to attempt `token` of op `id`: a send that was not
// stored (FLUSH_DISK_TIMEOUT and the like) is retried on another broker
// when the producer asks for it (retryAnotherBrokerWhenNotStoreOK).
void attempt_answered(loop_ptr self, uint64_t id, uint64_t token,
                      const pending_attempt& a, const message_queue& queue,
                      const send_result& res) {
  auto& st = self->state;
  if (st.pending.erase(token) == 0)
    return; // the attempt timer ended it
  --st.in_flight_by_broker[a.broker];
  report(self, a.broker, self->clock().now() - a.begin, false, true);
  auto j = st.ops.find(id);
  if (j != st.ops.end()) {
    auto& op = j->second;
    if (res.status != static_cast<uint8_t>(send_status::send_ok)
        && st.cfg.retry_another_broker_when_not_store_ok
        && op.mode == send_loop_op::kind::sync && !op.fixed_queue
        && op.attempts < op.attempts_total
        && self->clock().now() < op.deadline) {
      op.last_broker = a.broker;
      op.not_ok.emplace(res, queue);
      retry_or_fail(self, id);
    } else {
      succeed(self, id, res, queue);
    }
  }
  flush_queued(self, a.broker, st.stopping);
}

// Sends `req` to the master at `addr` once connected; the attempt ends by
// `deadline` (the attempt timer), by the answer, or by an error.
void send_to_broker(loop_ptr self, uint64_t id, const message_queue& queue,
                    const std::string& addr, send_message_request req,
                    time_point started, caf::timespan timeout) {
  auto& st = self->state;
  auto broker = queue.broker_name;
  auto attempt_deadline = started + timeout;
  // In flight from here, connect included, so async messages for this
  // broker wait for it rather than connecting in parallel.
  ++st.in_flight_by_broker[broker];
  with_broker(
    self, addr, timeout,
    [=, req = std::move(req)](caf::expected<client_broker_actor> hdl) mutable {
      auto begin = self->clock().now();
      auto left = attempt_deadline - begin;
      if (!hdl || left <= caf::timespan{0}) {
        --self->state.in_flight_by_broker[broker];
        attempt_failed(self, id, broker, addr, started,
                       hdl ? caf::make_error(caf::sec::request_timeout)
                           : hdl.error());
        flush_queued(self, broker, self->state.stopping);
        return;
      }
      auto& st = self->state;
      auto token = st.next_attempt++;
      pending_attempt a{id, broker, addr, begin, attempt_deadline};
      st.pending.emplace(token, a);
      arm_attempt_timer(self, attempt_deadline);
      // No CAF timeout: the attempt timer ends a silent attempt; an
      // answer after that finds no pending entry and is dropped.
      auto on_result = [=](const send_result& res) {
        attempt_answered(self, id, token, a, queue, res);
      };
      auto on_error = [=](const caf::error& err) {
        if (self->state.pending.erase(token) == 0)
          return;
        --self->state.in_flight_by_broker[broker];
        attempt_failed(self, id, broker, addr, begin, err);
        flush_queued(self, broker, self->state.stopping);
      };
      // A reply (MSG_TYPE "reply") goes to the broker's reply processor
      // (SEND_REPLY_MESSAGE_V2); real brokers have it, stubs need not.
      if (!req.batch
          && find_property(req.properties, property_message_type)
               == reply_message_flag) {
        auto replies = caf::actor_cast<reply_broker_actor>(*hdl);
        self
          ->request(replies, caf::infinite,
                    send_reply_message_request{std::move(req)})
          .then(on_result, on_error);
        return;
      }
      self->request(*hdl, caf::infinite, std::move(req))
        .then(on_result, on_error);
    });
}

void attempt(loop_ptr self, uint64_t id) {
  auto& st = self->state;
  auto i = st.ops.find(id);
  if (i == st.ops.end())
    return;
  auto& op = i->second;
  auto now = self->clock().now();
  if (now >= op.deadline) {
    fail(self, id, all_failed(self, op));
    return;
  }
  auto entry = st.topics.find(op.topic);
  auto queue = entry == st.topics.end() || entry->second.queues.empty()
                 ? std::nullopt
                 : pick_queue(self, op, entry->second);
  if (!queue) {
    fail(self, id,
         make_error(errc::topic_not_exist,
                    "No route info of this topic: " + op.topic));
    return;
  }
  if (divert_to_batch(self, i, *queue))
    return;
  auto& broker = queue->broker_name;
  ++op.attempts;
  op.brokers_sent.push_back(broker);
  auto addr = master_address(entry->second.route, broker);
  if (addr.empty()) {
    op.last_error = make_error(errc::broker_not_found,
                               "The broker[" + broker + "] not exist");
    op.last_broker = broker;
    retry_or_fail(self, id);
    return;
  }
  auto remaining = op.deadline - now;
  auto timeout = op.attempts < op.attempts_total && !op.fixed_queue
                   ? std::min<caf::timespan>(remaining, st.cfg.attempt_timeout)
                   : remaining;
  if (op.req_deferred) {
    op.req = make_send_request(op.msgs.front(), op.uniq_keys.front(),
                               op.born_ms, st.codec);
    op.req_deferred = false;
  }
  // A copy: op.req stays for a retry. Moved into the attempt, not copied
  // again (a batch request is the whole batch's bytes).
  auto req = op.req;
  req.queue_id = queue->queue_id;
  send_to_broker(self, id, *queue, addr, std::move(req), now, timeout);
}

/// Makes sure a timer fires by `deadline` (one is already on its way when
/// an earlier or equal one is).
void arm_attempt_timer(loop_ptr self, time_point deadline) {
  if (!self->state.attempt_timers.arm(deadline))
    return;
  auto delay = std::max<caf::timespan>(deadline - self->clock().now(),
                                       caf::timespan{0});
  self->delayed_send(self, delay, caf::tick_atom::value);
}

/// The attempt timer fired: ends every attempt past its deadline as a
/// request timeout (as a CAF request timeout would) and arms the timer for
/// the next deadline, if any.
void attempt_timer_fired(loop_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  st.attempt_timers.fired(now);
  std::vector<pending_attempt> expired;
  std::optional<time_point> next;
  for (auto i = st.pending.begin(); i != st.pending.end();) {
    if (i->second.deadline <= now) {
      expired.push_back(std::move(i->second));
      i = st.pending.erase(i);
    } else {
      if (!next || i->second.deadline < *next)
        next = i->second.deadline;
      ++i;
    }
  }
  // Before the retries below start attempts (and arm timers themselves).
  if (next)
    arm_attempt_timer(self, *next);
  for (auto& x : expired) {
    --st.in_flight_by_broker[x.broker];
    attempt_failed(self, x.op, x.broker, x.addr, x.begin,
                   caf::make_error(caf::sec::request_timeout));
    flush_queued(self, x.broker, st.stopping);
  }
}

} // namespace rmq::send_loop_detail
