#include "actors/client/producer/transaction_producer.hpp"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/received_message.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_id.hpp"

#include "actors/client/producer/send_loop.hpp"
#include "actors/client/producer/transaction_worker.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* transaction_producer_state::name = "transaction_producer";

namespace {

constexpr const char* component = "transaction_producer";

using txn_ptr
  = transaction_producer_actor::stateful_pointer<transaction_producer_state>;

/// A worker's answer never times out: the listener is the user's code and
/// RocketMQ bounds neither call. The error path still covers a worker that
/// went down.
constexpr auto unbounded = caf::infinite;

caf::timespan send_wait(const transaction_producer_state& st) {
  // The send loop answers within send_timeout; the margin covers a busy
  // scheduler (as the producer facade's).
  return 2 * st.cfg.producer.send_timeout + std::chrono::seconds{1};
}

void count_outcome(transaction_producer_state& st, transaction_state x) {
  switch (x) {
    case transaction_state::commit:
      ++st.committed;
      break;
    case transaction_state::rollback:
      ++st.rolled_back;
      break;
    case transaction_state::unknown:
      ++st.unknown;
      break;
  }
}

/// Hands `req` one-way to the broker at `addr` (RocketMQ
/// endTransactionOneway); `done` gets the reason it could not, or none.
void send_end(txn_ptr self, const std::string& addr,
              end_transaction_request req,
              std::function<void(const caf::error&)> done) {
  auto& st = self->state;
  auto what = "END_TRANSACTION of " + req.msg_id + " to " + addr;
  self
    ->request(st.inst.directory,
              st.inst.config.connect_timeout + std::chrono::seconds{1},
              caf::connect_atom::value, addr)
    .then(
      [=](const client_broker_actor& broker) {
        // One-way, so the interface clients hold of a broker does not list
        // it; the broker's own interface does.
        caf::anon_send(caf::actor_cast<caf::actor>(broker), std::move(req));
        ++self->state.ends_sent;
        done(caf::none);
      },
      [=](const caf::error& err) {
        log_request_failure(component, what, err);
        auto& st = self->state;
        ++st.ends_failed;
        st.last_error = describe(err);
        done(err);
      });
}

/// The master address of `broker_name` in the route of `topic` (RocketMQ
/// findBrokerAddressInPublish), from the route cache.
void with_master_addr(txn_ptr self, const std::string& topic,
                      const std::string& broker_name,
                      std::function<void(caf::expected<std::string>)> f) {
  auto& st = self->state;
  self
    ->request(st.inst.routes, st.inst.config.request_timeout, route_atom::value,
              topic)
    .then(
      [=](const topic_route_data& route) {
        for (auto& b : route.broker_datas) {
          if (b.broker_name != broker_name)
            continue;
          auto i = b.broker_addrs.find(master_id);
          if (i != b.broker_addrs.end() && !i->second.empty()) {
            f(i->second);
            return;
          }
        }
        f(make_error(errc::service_not_available,
                     "The broker[" + broker_name + "] not exist"));
      },
      [=](const caf::error& err) {
        log_request_failure(component, "route of " + topic, err);
        f(err);
      });
}

void maybe_finish_stop(txn_ptr self);

/// Ends transaction `id` at its broker, then answers its caller (RocketMQ
/// endTransaction: a failure to end is logged, the result still goes back).
void end_transaction(txn_ptr self, uint64_t id) {
  auto& st = self->state;
  auto pi = st.pending.find(id);
  if (pi == st.pending.end())
    return;
  auto& p = pi->second;
  auto state = static_cast<transaction_state>(p.res.local_state);
  count_outcome(st, state);
  if (state != transaction_state::commit)
    RMQ_INFO(component, "local transaction of " << p.res.send.msg_id << " on "
                                                << p.msg.topic << ": "
                                                << to_string(state));
  end_transaction_request req;
  req.producer_group = st.cfg.producer.group;
  req.tran_state_table_offset = p.res.send.queue_offset;
  req.state = p.res.local_state;
  req.msg_id = p.res.send.msg_id;
  req.transaction_id = p.res.send.msg_id;
  auto finish = [self, id](const caf::error& err) {
    auto& st = self->state;
    auto i = st.pending.find(id);
    if (i == st.pending.end())
      return;
    if (err)
      i->second.res.end_error = describe(err);
    i->second.rp.deliver(std::move(i->second.res));
    st.pending.erase(i);
    maybe_finish_stop(self);
  };
  auto where = decode_offset_msg_id(p.res.send.offset_msg_id);
  if (!where) {
    RMQ_WARN(component, "no commit-log offset in offsetMsgId '"
                          << p.res.send.offset_msg_id << "' of "
                          << p.res.send.msg_id);
    ++st.ends_failed;
    finish(where.error());
    return;
  }
  req.commit_log_offset = where->offset;
  with_master_addr(self, p.msg.topic, p.res.send.queue.broker_name,
                   [=](caf::expected<std::string> addr) mutable {
                     if (!addr) {
                       ++self->state.ends_failed;
                       finish(addr.error());
                       return;
                     }
                     send_end(self, *addr, std::move(req), finish);
                   });
}

/// The least loaded execute worker.
size_t pick_executor(const transaction_producer_state& st) {
  auto i = std::min_element(st.executor_load.begin(), st.executor_load.end());
  return static_cast<size_t>(i - st.executor_load.begin());
}

/// Records the listener's answer to transaction `id`, then ends it.
void executed(txn_ptr self, uint64_t id, local_transaction_result x) {
  auto& st = self->state;
  auto i = st.pending.find(id);
  if (i == st.pending.end())
    return;
  auto& p = i->second;
  --st.executor_load[p.worker];
  p.res.local_state = x.state;
  p.res.local_error = std::move(x.error);
  end_transaction(self, id);
}

void execute(txn_ptr self, uint64_t id, const std::string& arg) {
  auto& st = self->state;
  auto& p = st.pending[id];
  p.worker = pick_executor(st);
  ++st.executor_load[p.worker];
  // The listener sees the message as sent: RocketMQ's transactionId is
  // the UNIQ_KEY, which the result carries.
  self
    ->request(st.executors[p.worker], unbounded, execute_atom::value, p.msg,
              arg)
    .then(
      [=](local_transaction_result& x) { executed(self, id, std::move(x)); },
      [=](const caf::error& err) {
        log_request_failure(component, "local transaction", err);
        executed(self, id,
                 {static_cast<uint8_t>(transaction_state::unknown),
                  describe(err)});
      });
}

caf::result<transaction_send_result>
send_in_transaction(txn_ptr self, client_message msg, std::string arg) {
  auto& st = self->state;
  if (st.stopping)
    return make_error(errc::service_not_available,
                      "The producer service state not OK: shutting down");
  auto id = st.next_id++;
  auto& p = st.pending[id];
  p.msg = std::move(msg);
  p.rp = self->make_response_promise<transaction_send_result>();
  auto rp = p.rp;
  self
    ->request(st.sender, send_wait(st), send_atom::value,
              transaction_atom::value, p.msg)
    .then(
      [=](const client_send_result& res) {
        auto& st = self->state;
        ++st.sent;
        auto i = st.pending.find(id);
        if (i == st.pending.end())
          return;
        auto& p = i->second;
        p.res.send = res;
        switch (static_cast<send_status>(res.status)) {
          case send_status::send_ok:
            execute(self, id, arg);
            return;
          case send_status::flush_disk_timeout:
          case send_status::flush_slave_timeout:
          case send_status::slave_not_available:
            // Stored but not safe: RocketMQ rolls back without asking the
            // listener.
            p.res.local_state
              = static_cast<uint8_t>(transaction_state::rollback);
            break;
        }
        end_transaction(self, id);
      },
      [=](const caf::error& err) {
        // No half message: the listener does not run (RocketMQ throws
        // "send message Exception").
        log_request_failure(component, "half message", err);
        auto& st = self->state;
        ++st.send_failed;
        st.last_error = describe(err);
        auto i = st.pending.find(id);
        if (i != st.pending.end()) {
          i->second.rp.deliver(err);
          st.pending.erase(i);
        }
        maybe_finish_stop(self);
      });
  return rp;
}

/// A check-back's half message as the listener sees it: the topic and
/// queue it was sent to (a broker may pass the half as stored, on
/// RMQ_SYS_TRANS_HALF_TOPIC with REAL_TOPIC / REAL_QID).
caf::expected<received_message>
checked_message(const check_transaction_state& chk) {
  auto msg = decode_record(chk.record, chk.broker_name);
  if (!msg)
    return msg;
  auto& sys = msg->system_properties;
  if (auto i = sys.find(property_real_topic); i != sys.end())
    msg->topic = i->second;
  if (auto i = sys.find(property_real_queue_id); i != sys.end()) {
    try {
      msg->queue_id = std::stoi(i->second);
    } catch (...) {
      // Keep the stored queue: only the listener reads it.
    }
  }
  return msg;
}

void check(txn_ptr self, const check_transaction_state& chk) {
  auto& st = self->state;
  ++st.checks;
  if (st.stopping)
    return;
  auto msg = checked_message(chk);
  if (!msg) {
    // RocketMQ ClientRemotingProcessor: "decode message failed", dropped.
    ++st.checks_undecodable;
    st.last_error = describe(msg.error());
    RMQ_WARN(component, "check-back of "
                          << chk.msg_id << " from " << chk.broker_addr
                          << ": cannot decode the half: " << st.last_error);
    return;
  }
  // One check runs, check_request_hold_max wait (RocketMQ's executor of
  // one thread and a bounded queue, which rejects past it).
  if (st.checks_waiting > st.cfg.check_request_hold_max) {
    ++st.checks_dropped;
    RMQ_WARN(component, "check-back of " << chk.msg_id << " from "
                                         << chk.broker_addr
                                         << " dropped: " << st.checks_waiting
                                         << " checks waiting");
    return;
  }
  ++st.checks_waiting;
  end_transaction_request req;
  req.producer_group = st.cfg.producer.group;
  req.tran_state_table_offset = chk.tran_state_table_offset;
  req.commit_log_offset = chk.commit_log_offset;
  req.from_transaction_check = true;
  // The UNIQ_KEY (decode_record falls back to the offsetMsgId, as
  // RocketMQ's getMsgId).
  req.msg_id = msg->msg_id;
  req.transaction_id = chk.transaction_id;
  auto addr = chk.broker_addr;
  self->request(st.checker, unbounded, check_atom::value, std::move(*msg))
    .then(
      [=](const local_transaction_result& x) mutable {
        auto& st = self->state;
        --st.checks_waiting;
        ++st.checks_answered;
        auto state = static_cast<transaction_state>(x.state);
        if (state != transaction_state::commit)
          RMQ_WARN(component,
                   "check-back of " << req.msg_id << ": " << to_string(state));
        req.state = x.state;
        send_end(self, addr, std::move(req), [](const caf::error&) {});
      },
      [=](const caf::error& err) {
        --self->state.checks_waiting;
        log_request_failure(component, "check-back", err);
      });
}

void stop_workers(const std::vector<transaction_worker_actor>& ws) {
  for (auto& w : ws)
    caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
}

void maybe_finish_stop(txn_ptr self) {
  auto& st = self->state;
  if (!st.stopping || !st.pending.empty() || st.stop_sent)
    return;
  st.stop_sent = true;
  auto done = [self] {
    auto waiters = std::move(self->state.stop_waiters);
    self->state.stop_waiters.clear();
    for (auto& rp : waiters)
      rp.deliver(caf::ok_atom::value);
    self->quit();
  };
  self->request(st.sender, send_wait(st), shutdown_atom::value)
    .then([=](caf::ok_atom) { done(); },
          [=](const caf::error& err) {
            log_request_failure(component, "shutdown of the send loop", err);
            done();
          });
}

} // namespace

nlohmann::json transaction_producer_state::dump_fields() const {
  auto loads = nlohmann::json::array();
  for (auto n : executor_load)
    loads.push_back(n);
  return {
    {"group", cfg.producer.group},
    {"pending", pending.size()},
    {"executor_load", loads},
    {"checks_waiting", checks_waiting},
    {"check_request_hold_max", cfg.check_request_hold_max},
    {"stopping", stopping},
    {"sent", sent},
    {"send_failed", send_failed},
    {"committed", committed},
    {"rolled_back", rolled_back},
    {"unknown", unknown},
    {"ends_sent", ends_sent},
    {"ends_failed", ends_failed},
    {"checks", checks},
    {"checks_answered", checks_answered},
    {"checks_dropped", checks_dropped},
    {"checks_undecodable", checks_undecodable},
    {"last_error", last_error},
  };
}

transaction_producer_actor::behavior_type
transaction_producer_main(txn_ptr self, transaction_producer_config cfg,
                          client_instance inst,
                          std::shared_ptr<transaction_listener> listener) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.inst = std::move(inst);
  st.listener = std::move(listener);
  // The send loop registers the group with the heartbeat sender: the
  // brokers learn it is a producer group, and so whom to check back.
  st.sender = self->spawn<caf::linked>(send_loop, st.cfg.producer, st.inst);
  auto spawn_worker = [&] {
    return st.cfg.detached
             ? self->spawn<caf::detached>(transaction_worker, st.listener)
             : self->spawn(transaction_worker, st.listener);
  };
  auto n = std::max<size_t>(1, st.cfg.execute_threads);
  for (size_t i = 0; i < n; ++i)
    st.executors.push_back(spawn_worker());
  st.executor_load.assign(n, 0);
  st.checker = spawn_worker();
  // The state is gone when attached functors run: they hold copies.
  auto workers = st.executors;
  workers.push_back(st.checker);
  self->attach_functor([workers] { stop_workers(workers); });
  self->send(st.inst.heartbeats, caf::subscribe_atom::value,
             transaction_atom::value, st.cfg.producer.group,
             caf::actor_cast<transaction_check_listener_actor>(self));
  return {
    [=](send_atom, transaction_atom, client_message& msg, std::string& arg) {
      return send_in_transaction(self, std::move(msg), std::move(arg));
    },
    [=](const check_transaction_state& chk) { check(self, chk); },
    [=](shutdown_atom) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      st.stopping = true;
      auto rp = self->make_response_promise<caf::ok_atom>();
      st.stop_waiters.push_back(rp);
      maybe_finish_stop(self);
      return rp;
    },
    dump_handler(self),
  };
}

} // namespace rmq
