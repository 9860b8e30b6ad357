#include "actors/client/producer/send_loop.hpp"
#include "actors/client/producer/send_loop_parts.hpp"

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

namespace send_loop_detail {

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

int64_t now_ns(loop_ptr self) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

int64_t wall_ms(const send_loop_state& st) {
  return st.cfg.wall_clock.now_ms();
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
                       send_loop_op::kind mode, bool defer_req) {
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

} // namespace send_loop_detail

using namespace send_loop_detail;

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
