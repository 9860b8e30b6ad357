#include "actors/client/producer/send_loop.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
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

namespace rmq {

const char* send_loop_state::name = "send_loop";

void async_reply::deliver(client_send_result res) {
  if (to)
    caf::anon_send(to, async_atom::value, tag, std::move(res));
  else
    rp.deliver(std::move(res));
}

void async_reply::deliver(const caf::error& err) {
  if (to)
    caf::anon_send(to, async_atom::value, tag, err);
  else
    rp.deliver(err);
}

namespace {

constexpr const char* component = "send_loop";

using loop_ptr = producer_actor::stateful_pointer<send_loop_state>;
using time_point = caf::actor_clock::time_point;
using result_promise = caf::typed_response_promise<client_send_result>;

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

int64_t now_ns(loop_ptr self) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

int64_t wall_ms(const send_loop_state& st) {
  if (st.cfg.wall_clock_ms)
    return st.cfg.wall_clock_ms();
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

/// The IPv4 address (host byte order) at the front of a client id
/// ("ip@instance"), or 127.0.0.1.
uint32_t client_ipv4(const std::string& client_id) {
  auto ip = client_id.substr(0, client_id.find('@'));
  uint32_t out = 0;
  int parts = 0;
  std::istringstream in{ip};
  std::string part;
  while (std::getline(in, part, '.')) {
    if (part.empty() || part.size() > 3
        || part.find_first_not_of("0123456789") != std::string::npos)
      return 0x7F000001;
    auto v = std::stoi(part);
    if (v > 255)
      return 0x7F000001;
    out = (out << 8) | static_cast<uint32_t>(v);
    ++parts;
  }
  return parts == 4 ? out : 0x7F000001;
}

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

// -- forward declarations -----------------------------------------------------

void attempt(loop_ptr self, uint64_t id);
void arm_attempt_timer(loop_ptr self, time_point deadline);
void attempt_timer_fired(loop_ptr self);
void flush_queued(loop_ptr self, const std::string& broker, bool everything);
void maybe_finish_stop(loop_ptr self);

// -- topics -------------------------------------------------------------------

void set_route(loop_ptr self, const std::string& topic,
               const topic_route_data& route, bool from_default) {
  auto& st = self->state;
  auto [i, added] = st.topics.try_emplace(topic);
  auto& entry = i->second;
  if (added)
    entry.index = st.cfg.start_index ? st.cfg.start_index() : st.rng();
  entry.route = route;
  entry.from_default = from_default;
  entry.fetched_at = self->clock().now();
  entry.queues = from_default
                   ? default_publish_queues(topic, route,
                                            st.cfg.default_topic_queue_nums)
                   : publish_queues(topic, route);
}

void resume_waiters(loop_ptr self, const std::string& topic,
                    const caf::error& err) {
  auto& st = self->state;
  auto i = st.waiting_for_route.find(topic);
  if (i == st.waiting_for_route.end())
    return;
  auto waiters = std::move(i->second);
  st.waiting_for_route.erase(i);
  for (auto& f : waiters)
    f(err);
}

/// Fetches the topic's route, else the default topic's (the broker then
/// creates the topic on the first send, RocketMQ
/// tryToFindTopicPublishInfo).
void fetch_route(loop_ptr self, const std::string& topic,
                 caf::timespan timeout) {
  auto& st = self->state;
  self->request(st.inst.routes, timeout, route_atom::value, topic)
    .then(
      [=](const topic_route_data& route) {
        set_route(self, topic, route, false);
        resume_waiters(self, topic, caf::error{});
      },
      [=](const caf::error& err) {
        log_request_failure(component, "route of " + topic, err);
        auto& st = self->state;
        auto known = st.topics.find(topic);
        if (known != st.topics.end()) {
          // A stale entry beats none while the NameServers are away (or,
          // for a TBW102 entry, while the topic has no route yet): asked
          // again after the next poll interval, not at every send.
          known->second.fetched_at = self->clock().now();
          resume_waiters(self, topic, caf::error{});
          return;
        }
        if (err != errc::topic_not_exist) {
          resume_waiters(self, topic, err);
          return;
        }
        auto fallback = st.cfg.create_topic_key;
        self->request(st.inst.routes, timeout, route_atom::value, fallback)
          .then(
            [=](const topic_route_data& route) {
              set_route(self, topic, route, true);
              resume_waiters(self, topic, caf::error{});
            },
            [=](const caf::error& err2) {
              log_request_failure(component, "route of " + fallback, err2);
              resume_waiters(
                self, topic,
                make_error(errc::topic_not_exist,
                           "No route info of this topic: " + topic));
            });
      });
}

/// Runs `f` once the topic's queues are known (or with the error that
/// keeps them unknown).
void with_route(loop_ptr self, const std::string& topic, time_point deadline,
                std::function<void(const caf::error&)> f) {
  auto& st = self->state;
  auto now = self->clock().now();
  auto i = st.topics.find(topic);
  if (i != st.topics.end()
      && !(i->second.from_default
           && now - i->second.fetched_at
                >= st.inst.config.poll_namesrv_interval)) {
    f(caf::error{});
    return;
  }
  auto& waiters = st.waiting_for_route[topic];
  waiters.push_back(std::move(f));
  if (waiters.size() == 1) {
    auto timeout = std::max<caf::timespan>(deadline - now,
                                           std::chrono::milliseconds{1});
    fetch_route(self, topic, timeout);
  }
}

// -- broker handles -----------------------------------------------------------

using broker_cont = std::function<void(caf::expected<client_broker_actor>)>;

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
  if (entry == st.topics.end() || entry->second.queues.empty()) {
    fail(self, id,
         make_error(errc::topic_not_exist,
                    "No route info of this topic: " + op.topic));
    return;
  }
  auto& tp = entry->second;
  message_queue queue;
  if (op.fixed_queue) {
    queue = *op.fixed_queue;
  } else if (op.first_queue && op.attempts == 0) {
    queue = *op.first_queue;
  } else {
    const latency_fault_table* faults = nullptr;
    if (st.inst.config.latency_fault_enable)
      faults = &st.faults;
    auto pick = select_queue(tp.queues, op.last_broker, faults, now_ns(self),
                             tp.index);
    if (!pick) {
      fail(self, id,
           make_error(errc::topic_not_exist,
                      "No route info of this topic: " + op.topic));
      return;
    }
    queue = tp.queues[*pick];
  }
  auto broker = queue.broker_name;
  // Natural batching: an async message whose broker is busy (has
  // batch_partial_in_flight requests out) waits for one to end, then goes
  // with the others in one batch. With a linger it also waits for company
  // while the broker is idle.
  auto busy = st.in_flight_by_broker[broker]
              >= std::max<size_t>(1, st.cfg.batch_partial_in_flight);
  auto linger = st.cfg.batch_linger > caf::timespan{0};
  if (op.mode == send_loop_op::kind::async && !op.auto_batch && op.attempts == 0
      && !op.first_queue && !op.msgs.empty() && batchable(st, op.msgs.front())
      && (busy || linger) && !st.stopping) {
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
      return;
    }
    if (full()) {
      flush_queued(self, broker, false); // full: no reason to wait
    } else if (st.lingering.insert(broker).second) {
      self->delayed_send(self, st.cfg.batch_linger, caf::tick_atom::value,
                         broker);
    }
    return;
  }
  ++op.attempts;
  op.brokers_sent.push_back(broker);
  auto addr = master_address(tp.route, broker);
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
  auto attempt_deadline = now + timeout;
  if (op.req_deferred) {
    op.req = make_send_request(op.msgs.front(), op.uniq_keys.front(),
                               op.born_ms, st.codec);
    op.req_deferred = false;
  }
  // A copy: op.req stays for a retry. Moved into the attempt below, not
  // copied again (a batch request is the whole batch's bytes).
  auto req = op.req;
  req.queue_id = queue.queue_id;
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
        attempt_failed(self, id, broker, addr, now,
                       hdl ? caf::make_error(caf::sec::request_timeout)
                           : hdl.error());
        flush_queued(self, broker, self->state.stopping);
        return;
      }
      auto& st = self->state;
      auto token = st.next_attempt++;
      st.pending.emplace(token, pending_attempt{id, broker, addr, begin,
                                                attempt_deadline});
      arm_attempt_timer(self, attempt_deadline);
      // No CAF timeout: the attempt timer ends a silent attempt; an
      // answer after that finds no pending entry and is dropped.
      auto on_result = [=](const send_result& res) {
        auto& st = self->state;
        if (st.pending.erase(token) == 0)
          return;
        --st.in_flight_by_broker[broker];
        report(self, broker, self->clock().now() - begin, false, true);
        auto j = st.ops.find(id);
        if (j != st.ops.end()) {
          auto& op = j->second;
          if (res.status != static_cast<uint8_t>(send_status::send_ok)
              && st.cfg.retry_another_broker_when_not_store_ok
              && op.mode == send_loop_op::kind::sync && !op.fixed_queue
              && op.attempts < op.attempts_total
              && self->clock().now() < op.deadline) {
            op.last_broker = broker;
            op.not_ok.emplace(res, queue);
            retry_or_fail(self, id);
          } else {
            succeed(self, id, res, queue);
          }
        }
        flush_queued(self, broker, self->state.stopping);
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

// -- starting a send ----------------------------------------------------------

uint64_t new_op(loop_ptr self, send_loop_op op) {
  auto& st = self->state;
  auto id = st.next_op++;
  op.started = self->clock().now();
  op.deadline = op.started + st.cfg.send_timeout;
  st.ops.emplace(id, std::move(op));
  return id;
}

void start(loop_ptr self, uint64_t id) {
  auto& topic = self->state.ops[id].topic;
  auto deadline = self->state.ops[id].deadline;
  with_route(self, topic, deadline, [self, id](const caf::error& err) {
    if (err)
      fail(self, id, err);
    else
      attempt(self, id);
  });
}

caf::error not_running() {
  return make_error(errc::service_not_available,
                    "The producer service state not OK: shutting down");
}

send_loop_op single_op(loop_ptr self, const client_message& msg,
                       send_loop_op::kind mode, bool defer_req = false) {
  auto& st = self->state;
  send_loop_op op;
  op.mode = mode;
  op.topic = msg.topic;
  auto now_ms = wall_ms(st);
  auto key = st.keys->next(now_ms);
  op.born_ms = now_ms;
  op.req_deferred = defer_req;
  if (!defer_req)
    op.req = make_send_request(msg, key, now_ms, st.codec);
  op.uniq_keys = {key};
  op.sizes = {msg.body.size()};
  switch (mode) {
    case send_loop_op::kind::sync:
      op.attempts_total = 1 + std::max(0, st.cfg.retries);
      break;
    case send_loop_op::kind::async:
      op.attempts_total = 1 + std::max(0, st.cfg.async_retries);
      break;
    case send_loop_op::kind::oneway:
      op.attempts_total = 1;
      break;
  }
  return op;
}

caf::result<client_send_result>
send_one(loop_ptr self, const client_message& msg,
         std::optional<message_queue> queue, bool half = false) {
  auto& st = self->state;
  if (st.stopping)
    return not_running();
  if (auto err = check_client_message(msg, st.codec))
    return err;
  if (queue && queue->topic != msg.topic)
    return make_error(errc::message_illegal,
                      "message's topic not equal mq's topic");
  auto op = single_op(self, msg, send_loop_op::kind::sync);
  if (half)
    mark_transaction_half(op.req, st.cfg.group);
  op.fixed_queue = std::move(queue);
  if (op.fixed_queue)
    op.attempts_total = 1;
  op.rp = self->make_response_promise<client_send_result>();
  auto rp = op.rp;
  start(self, new_op(self, std::move(op)));
  return rp;
}

caf::result<client_send_result>
send_many(loop_ptr self, const std::vector<client_message>& msgs,
          std::optional<message_queue> queue) {
  auto& st = self->state;
  if (st.stopping)
    return not_running();
  if (msgs.empty())
    return make_error(errc::message_illegal, "a batch needs messages");
  // One topic for the batch (make_batch_request refuses another), so it
  // is checked once.
  auto& topic = msgs.front().topic;
  for (auto& msg : msgs)
    if (auto err = check_client_message(
          msg, st.codec, &msg != &msgs.front() && msg.topic == topic))
      return err;
  if (queue && queue->topic != msgs.front().topic)
    return make_error(errc::message_illegal,
                      "message's topic not equal mq's topic");
  send_loop_op op;
  op.mode = send_loop_op::kind::sync;
  op.topic = msgs.front().topic;
  auto now_ms = wall_ms(st);
  op.uniq_keys.reserve(msgs.size());
  op.sizes.reserve(msgs.size());
  for (auto& msg : msgs) {
    op.uniq_keys.push_back(st.keys->next(now_ms));
    op.sizes.push_back(msg.body.size());
  }
  auto req = make_batch_request(msgs, op.uniq_keys, now_ms, st.codec, true);
  if (!req)
    return req.error();
  op.req = std::move(*req);
  op.fixed_queue = std::move(queue);
  op.attempts_total = op.fixed_queue ? 1 : 1 + std::max(0, st.cfg.retries);
  op.rp = self->make_response_promise<client_send_result>();
  auto rp = op.rp;
  start(self, new_op(self, std::move(op)));
  return rp;
}

// Accepts an async send answered through `reply`; an error means it was
// not accepted (and `reply` is not used).
caf::error send_async(loop_ptr self, const client_message& msg,
                      async_reply reply) {
  auto& st = self->state;
  if (st.stopping)
    return not_running();
  if (auto err = check_client_message(msg, st.codec))
    return err;
  auto size = msg.body.size();
  if (st.async_messages + 1 > st.cfg.max_async_messages
      || st.async_bytes + size > st.cfg.max_async_bytes) {
    ++st.rejected_busy;
    return make_error(errc::system_busy,
                      "async sends over the bound: "
                        + std::to_string(st.async_messages) + " messages, "
                        + std::to_string(st.async_bytes) + " bytes in flight");
  }
  ++st.async_messages;
  st.async_bytes += size;
  // A batchable message gets its own request only if it goes alone.
  auto op = single_op(self, msg, send_loop_op::kind::async, batchable(st, msg));
  op.msgs = {msg};
  op.async_rps = {std::move(reply)};
  start(self, new_op(self, std::move(op)));
  return caf::none;
}

// -- auto-batching ------------------------------------------------------------

/// Sends what waits for `broker`: per topic one batch (bounded by
/// batch_max_messages / batch_max_bytes), and further full ones while
/// fewer than batch_max_in_flight requests are in flight; `everything`
/// sends every batch at once (shutdown).
void flush_queued(loop_ptr self, const std::string& broker, bool everything) {
  auto& st = self->state;
  auto by_topic = st.queued.find(broker);
  if (by_topic == st.queued.end())
    return;
  std::vector<std::vector<queued_async>> chunks;
  auto max_chunk = std::max<size_t>(1, st.cfg.batch_max_messages);
  auto in_flight = st.in_flight_by_broker[broker];
  for (auto& [topic, waiting] : by_topic->second) {
    // One batch per topic in any case; more while full ones wait and the
    // broker has room for them (batch_max_in_flight).
    for (bool first = true; !waiting.empty(); first = false) {
      size_t bytes = 0;
      size_t n = 0;
      while (n < waiting.size() && n < max_chunk
             && (n == 0 || bytes + waiting[n].size <= st.cfg.batch_max_bytes)) {
        bytes += waiting[n].size;
        ++n;
      }
      auto full = n == max_chunk || n < waiting.size();
      if (!everything && !first
          && (!full || in_flight + chunks.size() >= st.cfg.batch_max_in_flight))
        break;
      std::vector<queued_async> chunk;
      std::move(waiting.begin(), waiting.begin() + n,
                std::back_inserter(chunk));
      waiting.erase(waiting.begin(), waiting.begin() + n);
      chunks.push_back(std::move(chunk));
    }
  }
  for (auto i = by_topic->second.begin(); i != by_topic->second.end();) {
    if (i->second.empty())
      i = by_topic->second.erase(i);
    else
      ++i;
  }
  if (by_topic->second.empty())
    st.queued.erase(by_topic);
  for (auto& chunk : chunks) {
    send_loop_op op;
    op.mode = send_loop_op::kind::async;
    op.topic = chunk.front().msg.topic;
    op.first_queue = chunk.front().queue;
    op.attempts_total = 1 + std::max(0, st.cfg.async_retries);
    auto deadline = chunk.front().deadline;
    std::vector<client_message> msgs;
    for (auto& q : chunk) {
      deadline = std::min(deadline, q.deadline);
      op.uniq_keys.push_back(q.uniq_key);
      op.sizes.push_back(q.size);
      op.async_rps.push_back(q.rp);
      msgs.push_back(std::move(q.msg));
    }
    auto now_ms = wall_ms(st);
    if (msgs.size() == 1) {
      op.req = make_send_request(msgs.front(), op.uniq_keys.front(), now_ms,
                                 st.codec);
    } else {
      auto req = make_batch_request(msgs, op.uniq_keys, now_ms, st.codec, true);
      if (!req) {
        // Cannot happen for checked messages of one topic within the
        // bounds; answer rather than drop them if it does.
        for (auto& rp : op.async_rps)
          rp.deliver(req.error());
        st.failed += op.async_rps.size();
        release_async(st, op);
        continue;
      }
      op.req = std::move(*req);
      op.auto_batch = true;
      ++st.batches;
      st.batched_messages += msgs.size();
    }
    auto id = st.next_op++;
    op.started = self->clock().now();
    op.deadline = deadline;
    st.ops.emplace(id, std::move(op));
    attempt(self, id);
  }
}

// -- request-reply ------------------------------------------------------------

/// RocketMQ DefaultMQProducerImpl#request: the message gets CORRELATION_ID,
/// REPLY_TO_CLIENT and TTL, the client instance's request holder waits
/// for its reply, and a failed send ends the wait with the send's error.
caf::result<received_message> request_one(loop_ptr self, client_message msg,
                                          caf::timespan timeout) {
  auto& st = self->state;
  if (st.stopping)
    return not_running();
  if (timeout <= caf::timespan{0})
    return make_error(errc::invalid_parameter,
                      "a request needs a timeout above zero");
  if (!st.inst.requests)
    return make_error(errc::service_not_available,
                      "the client instance has no request holder");
  // A UNIQ_KEY-style id: unique across processes, as RocketMQ's UUID.
  auto id = st.keys->next(wall_ms(st));
  msg.properties[property_correlation_id] = id;
  msg.properties[property_reply_to_client] = st.inst.client_id;
  msg.properties[property_message_ttl] = std::to_string(to_ms(timeout));
  if (auto err = check_client_message(msg, st.codec))
    return err;
  ++st.requests;
  auto rp = self->make_response_promise<received_message>();
  // The wait first: the holder has it before any reply can reach it.
  self
    ->request(st.inst.requests, caf::infinite, request_atom::value, id, timeout)
    .then(
      [rp](received_message& reply) mutable { rp.deliver(std::move(reply)); },
      [rp](caf::error& err) mutable {
        log_request_failure(component, "request", err);
        rp.deliver(std::move(err));
      });
  auto fail_wait = [self, id](const caf::error& err) {
    self->send(self->state.inst.requests, caf::delete_atom::value, id, err);
  };
  auto send = [self, msg, fail_wait] {
    auto me = caf::actor_cast<producer_actor>(self);
    // The send loop answers within send_timeout.
    self->request(me, caf::infinite, send_atom::value, msg)
      .then([](const client_send_result&) {},
            [fail_wait](const caf::error& err) { fail_wait(err); });
  };
  if (st.topics.count(msg.topic) > 0) {
    send();
    return rp;
  }
  // RocketMQ prepareSendRequest: the first request to a topic fetches its
  // route and heartbeats to every broker at once, so that the broker the
  // reply comes through knows this client.
  auto deadline = self->clock().now() + st.cfg.send_timeout;
  with_route(self, msg.topic, deadline,
             [self, send, fail_wait](const caf::error& err) {
               if (err) {
                 fail_wait(err);
                 return;
               }
               self
                 ->request(self->state.inst.heartbeats,
                           self->state.cfg.send_timeout, heartbeat_atom::value)
                 .then([send](caf::ok_atom) { send(); },
                       [send](const caf::error& err) {
                         log_request_failure(component,
                                             "heartbeat before a request", err);
                         send();
                       });
             });
  return rp;
}

// -- shutdown -----------------------------------------------------------------

void maybe_finish_stop(loop_ptr self) {
  auto& st = self->state;
  if (!st.stopping || !st.ops.empty() || !st.queued.empty()
      || st.stop_waiters.empty())
    return;
  auto waiters = std::move(st.stop_waiters);
  st.stop_waiters.clear();
  auto done = [self, waiters]() mutable {
    for (auto& rp : waiters)
      rp.deliver(caf::ok_atom::value);
    self->quit();
  };
  self
    ->request(st.inst.heartbeats, st.cfg.send_timeout, caf::delete_atom::value,
              producer_atom::value, st.cfg.group)
    .then([done](caf::ok_atom) mutable { done(); },
          [self, done](const caf::error& err) mutable {
            log_request_failure(component,
                                "unregistering " + self->state.cfg.group, err);
            done();
          });
}

} // namespace

// -- state --------------------------------------------------------------------

size_t send_loop_state::queued_count() const {
  size_t n = 0;
  for (auto& [broker, by_topic] : queued)
    for (auto& [topic, xs] : by_topic)
      n += xs.size();
  return n;
}

nlohmann::json send_loop_state::dump_fields() const {
  auto config = nlohmann::json{
    {"group", cfg.group},
    {"send_timeout_ms", to_ms(cfg.send_timeout)},
    {"attempt_timeout_ms", to_ms(cfg.attempt_timeout)},
    {"retries", cfg.retries},
    {"async_retries", cfg.async_retries},
    {"retry_another_broker_when_not_store_ok",
     cfg.retry_another_broker_when_not_store_ok},
    {"max_message_size", cfg.max_message_size},
    {"compress_over", cfg.compress_over},
    {"create_topic_key", cfg.create_topic_key},
    {"max_async_messages", cfg.max_async_messages},
    {"max_async_bytes", cfg.max_async_bytes},
    {"auto_batch", cfg.auto_batch},
    {"batch_max_messages", cfg.batch_max_messages},
    {"batch_max_bytes", cfg.batch_max_bytes},
    {"batch_max_in_flight", cfg.batch_max_in_flight},
    {"batch_partial_in_flight", cfg.batch_partial_in_flight},
    {"batch_linger_us",
     std::chrono::duration_cast<std::chrono::microseconds>(cfg.batch_linger)
       .count()},
    {"latency_fault_enable", inst.config.latency_fault_enable},
  };
  auto brokers_json = nlohmann::json::object();
  for (auto& [broker, n] : in_flight_by_broker)
    brokers_json[broker]["in_flight"] = n;
  for (auto& [broker, by_topic] : queued) {
    size_t n = 0;
    for (auto& [topic, xs] : by_topic)
      n += xs.size();
    brokers_json[broker]["queued"] = n;
  }
  for (auto& [broker, x] : brokers_json.items()) {
    if (!x.contains("in_flight"))
      x["in_flight"] = 0;
    if (!x.contains("queued"))
      x["queued"] = 0;
  }
  auto topics_json = nlohmann::json::array();
  for (auto& [topic, tp] : topics)
    topics_json.push_back({{"topic", topic},
                           {"queues", tp.queues.size()},
                           {"from_default", tp.from_default}});
  return {
    {"client_id", inst.client_id},
    {"config", std::move(config)},
    {"stopping", stopping},
    {"in_flight",
     {{"sends", ops.size()},
      {"async_messages", async_messages},
      {"async_bytes", async_bytes},
      {"queued", queued_count()},
      {"attempts", pending.size()}}},
    {"brokers", std::move(brokers_json)},
    {"lingering", lingering},
    {"topics", std::move(topics_json)},
    {"faults", faults.snapshot()},
    {"counters",
     {{"sent", sent},
      {"failed", failed},
      {"retried", retried},
      {"batches", batches},
      {"batched_messages", batched_messages},
      {"rejected_busy", rejected_busy},
      {"requests", requests}}},
  };
}

// -- behavior -----------------------------------------------------------------

producer_actor::behavior_type
send_loop(producer_actor::stateful_pointer<send_loop_state> self,
          producer_config cfg, client_instance inst) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.inst = std::move(inst);
  st.faults = latency_fault_table{st.inst.config.faults};
  auto ip = client_ipv4(st.inst.client_id);
  std::random_device rd;
  st.keys.emplace(ip, static_cast<uint16_t>(::getpid()),
                  static_cast<int32_t>(rd()));
  st.rng.seed(rd());
  st.codec.producer_group = st.cfg.group;
  st.codec.max_message_size = st.cfg.max_message_size;
  st.codec.compress_over = st.cfg.compress_over;
  st.codec.compress_level = st.cfg.compress_level;
  st.codec.default_topic = st.cfg.create_topic_key;
  st.codec.default_queue_nums = st.cfg.default_topic_queue_nums;
  st.codec.born_ip = ip;
  // Subscriptions: routes, faults and lost peers are pushed to us.
  self->send(st.inst.routes, caf::subscribe_atom::value,
             caf::actor_cast<route_listener_actor>(self));
  self->send(st.inst.faults, caf::subscribe_atom::value,
             caf::actor_cast<fault_listener_actor>(self));
  self->send(st.inst.directory, caf::subscribe_atom::value,
             caf::actor_cast<peer_listener_actor>(self));
  self->request(st.inst.faults, st.cfg.send_timeout, fault_atom::value)
    .then([self](const fault_snapshot& x) { self->state.faults.assign(x); },
          [](const caf::error& err) {
            log_request_failure(component, "fault table", err);
          });
  self
    ->request(st.inst.heartbeats, st.cfg.send_timeout, producer_atom::value,
              st.cfg.group)
    .then([](caf::ok_atom) {},
          [self](const caf::error& err) {
            log_request_failure(component,
                                "registering " + self->state.cfg.group, err);
          });
  return {
    [=](send_atom, const client_message& msg) {
      return send_one(self, msg, std::nullopt);
    },
    [=](send_atom, const client_message& msg, const message_queue& queue) {
      return send_one(self, msg, queue);
    },
    [=](send_atom, const std::vector<client_message>& msgs) {
      return send_many(self, msgs, std::nullopt);
    },
    [=](send_atom, const std::vector<client_message>& msgs,
        const message_queue& queue) { return send_many(self, msgs, queue); },
    [=](async_atom,
        const client_message& msg) -> caf::result<client_send_result> {
      auto rp = self->make_response_promise<client_send_result>();
      if (auto err = send_async(self, msg, {rp, {}, 0}))
        rp.deliver(err);
      return rp;
    },
    [=](async_atom, uint64_t tag, const client_message& msg) {
      auto to = caf::actor_cast<caf::actor>(self->current_sender());
      if (!to)
        return;
      async_reply reply{{}, to, tag};
      if (auto err = send_async(self, msg, reply))
        reply.deliver(err);
    },
    [=](oneway_atom, const client_message& msg) {
      auto& st = self->state;
      if (st.stopping)
        return;
      if (auto err = check_client_message(msg, st.codec)) {
        log_request_failure(component, "oneway send", err);
        return;
      }
      start(self,
            new_op(self, single_op(self, msg, send_loop_op::kind::oneway)));
    },
    [=](queues_atom,
        const std::string& topic) -> caf::result<std::vector<message_queue>> {
      auto rp = self->make_response_promise<std::vector<message_queue>>();
      auto deadline = self->clock().now() + self->state.cfg.send_timeout;
      with_route(self, topic, deadline,
                 [self, rp, topic](const caf::error& err) mutable {
                   if (err) {
                     rp.deliver(err);
                     return;
                   }
                   auto queues = self->state.topics[topic].queues;
                   std::sort(queues.begin(), queues.end());
                   rp.deliver(std::move(queues));
                 });
      return rp;
    },
    [=](shutdown_atom) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      st.stopping = true;
      auto rp = self->make_response_promise<caf::ok_atom>();
      st.stop_waiters.push_back(rp);
      // Waiting messages go now: they end within their own send timeout.
      std::vector<std::string> brokers;
      for (auto& [broker, by_topic] : st.queued)
        brokers.push_back(broker);
      for (auto& broker : brokers)
        flush_queued(self, broker, true);
      maybe_finish_stop(self);
      return rp;
    },
    [=](route_atom, const std::string& topic, const topic_route_data& route) {
      auto& st = self->state;
      if (topic == st.cfg.create_topic_key) {
        for (auto& [name, tp] : st.topics)
          if (tp.from_default)
            set_route(self, name, route, true);
      }
      auto i = st.topics.find(topic);
      if (i != st.topics.end())
        set_route(self, topic, route, false);
    },
    [=](fault_atom, const fault_snapshot& x) { self->state.faults.assign(x); },
    [=](peer_lost_atom, const std::string& addr) {
      auto& st = self->state;
      st.brokers.erase(addr);
      // CAF 0.17 does not fail requests to a node whose connection closed:
      // without this, each attempt to it would wait for its deadline, and
      // the async messages queued behind it with it.
      std::vector<pending_attempt> lost;
      for (auto i = st.pending.begin(); i != st.pending.end();) {
        if (i->second.addr == addr) {
          lost.push_back(std::move(i->second));
          i = st.pending.erase(i);
        } else {
          ++i;
        }
      }
      for (auto& x : lost) {
        --st.in_flight_by_broker[x.broker];
        attempt_failed(self, x.op, x.broker, x.addr, x.begin,
                       caf::make_error(caf::sec::request_receiver_down));
        flush_queued(self, x.broker, st.stopping);
      }
    },
    [=](caf::tick_atom, const std::string& broker) {
      auto& st = self->state;
      st.lingering.erase(broker);
      // A request in flight flushes the queue when it ends.
      if (st.in_flight_by_broker[broker] == 0)
        flush_queued(self, broker, false);
    },
    [=](caf::tick_atom) { attempt_timer_fired(self); },
    [=](send_atom, transaction_atom, client_message msg) {
      // RocketMQ sendMessageInTransaction: a delay level is ignored.
      msg.delay_level = 0;
      return send_one(self, msg, std::nullopt, true);
    },
    [=](request_atom, client_message& msg, caf::timespan timeout) {
      return request_one(self, std::move(msg), timeout);
    },
    dump_handler(self),
  };
}

} // namespace rmq
