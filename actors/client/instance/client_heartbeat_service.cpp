#include "actors/client/instance/client_heartbeat_service.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/consumer_running_report.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/remoting/consumer_running_info_body.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* client_heartbeat_state::name = "client_heartbeat_service";

namespace {

constexpr const char* component = "client_heartbeat_service";

using heartbeat_ptr
  = client_heartbeat_service_actor::stateful_pointer<client_heartbeat_state>;

int64_t ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

/// Sends `req` to each broker address in `targets` (connecting through the
/// directory) and calls `done` once every one answered or failed.
template <class Request>
void send_to_all(heartbeat_ptr self,
                 std::vector<std::pair<std::string, std::string>> targets,
                 Request req, const char* what, std::function<void()> done) {
  if (targets.empty()) {
    done();
    return;
  }
  auto pending = std::make_shared<size_t>(targets.size());
  auto one_done = [pending, done] {
    if (--*pending == 0)
      done();
  };
  auto& cfg = self->state.cfg;
  for (auto& [name, addr] : targets) {
    self->state.peers[addr].broker_name = name;
    auto failed = [=](const caf::error& err) {
      auto& p = self->state.peers[addr];
      ++p.failures;
      p.last_error = describe(err);
      log_request_failure(component, std::string{what} + " to " + addr, err);
      one_done();
    };
    auto timeout = cfg.request_timeout;
    self
      ->request(cfg.directory, cfg.connect_timeout + std::chrono::seconds{1},
                caf::connect_atom::value, addr)
      .then(
        [=](client_broker_actor& broker) {
          self->request(broker, timeout, req)
            .then(
              [=](caf::ok_atom) {
                auto& p = self->state.peers[addr];
                if constexpr (std::is_same_v<Request, client_heartbeat>)
                  ++p.heartbeats;
                p.last_error.clear();
                one_done();
              },
              failed);
        },
        failed);
  }
}

/// Asks the route cache for the brokers, then calls `f` with them (none
/// when the cache fails: logged).
void with_brokers(heartbeat_ptr self,
                  std::function<void(std::vector<broker_data>)> f) {
  self
    ->request(self->state.cfg.routes, self->state.cfg.request_timeout,
              brokers_atom::value)
    .then([=](std::vector<broker_data>& brokers) { f(std::move(brokers)); },
          [=](const caf::error& err) {
            log_request_failure(component, "brokers of the route cache", err);
            f({});
          });
}

/// One heartbeat round; `done` runs when every broker answered or failed.
void round(heartbeat_ptr self, std::function<void()> done) {
  auto& st = self->state;
  // RocketMQ sends nothing for a client without groups.
  if (st.producers.empty() && st.consumers.empty()) {
    done();
    return;
  }
  ++st.rounds;
  ++st.rounds_in_flight;
  with_brokers(self, [=](std::vector<broker_data> brokers) {
    auto& st = self->state;
    // The groups as they are now, not when the round was asked for.
    auto targets = heartbeat_targets(brokers, !st.consumers.empty());
    send_to_all(self, std::move(targets), st.heartbeat(), "heartbeat", [=] {
      --self->state.rounds_in_flight;
      done();
    });
  });
}

/// Unregisters from every broker address, then answers `rp`.
void unregister(heartbeat_ptr self, unregister_client_request req,
                caf::typed_response_promise<caf::ok_atom> rp) {
  with_brokers(self, [=](std::vector<broker_data> brokers) mutable {
    send_to_all(self, heartbeat_targets(brokers, true), req, "unregistration",
                [rp]() mutable { rp.deliver(caf::ok_atom::value); });
  });
}

void arm(heartbeat_ptr self) {
  if (self->state.cfg.interval.count() > 0)
    self->delayed_send(self, self->state.cfg.interval, caf::tick_atom::value);
}

} // namespace

std::vector<std::pair<std::string, std::string>>
heartbeat_targets(const std::vector<broker_data>& brokers, bool consumers) {
  std::vector<std::pair<std::string, std::string>> result;
  for (auto& b : brokers)
    for (auto& [id, addr] : b.broker_addrs)
      if (consumers || id == master_id)
        result.emplace_back(b.broker_name, addr);
  return result;
}

client_heartbeat client_heartbeat_state::heartbeat() const {
  client_heartbeat hb;
  hb.client_id = cfg.client_id;
  for (auto& [group, n] : producers)
    hb.producer_groups.push_back(group);
  for (auto& [group, c] : consumers)
    hb.consumers.push_back(c);
  return hb;
}

client_heartbeat_service_actor::behavior_type
client_heartbeat_service(heartbeat_ptr self, client_heartbeat_config cfg) {
  self->state.cfg = std::move(cfg);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& ls = self->state.listeners;
    ls.erase(std::remove_if(ls.begin(), ls.end(),
                            [&](const caf::actor& l) {
                              return l.address() == dm.source;
                            }),
             ls.end());
    auto& tps = self->state.transaction_producers;
    for (auto i = tps.begin(); i != tps.end();) {
      auto& xs = i->second;
      xs.erase(std::remove_if(xs.begin(), xs.end(),
                              [&](const transaction_check_listener_actor& x) {
                                return x.address() == dm.source;
                              }),
               xs.end());
      i = xs.empty() ? tps.erase(i) : std::next(i);
    }
  });
  arm(self);
  return {
    [=](producer_atom,
        const std::string& group) -> caf::typed_response_promise<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      if (group.empty()) {
        rp.deliver(make_error(errc::invalid_parameter, "empty producer group"));
        return rp;
      }
      if (self->state.producers[group]++ > 0) {
        rp.deliver(caf::ok_atom::value);
        return rp;
      }
      round(self, [rp]() mutable { rp.deliver(caf::ok_atom::value); });
      return rp;
    },
    [=](consumer_atom,
        const consumer_data& c) -> caf::typed_response_promise<caf::ok_atom> {
      // Taken before the promise, which takes the request's sender over.
      auto consumer = caf::actor_cast<dumpable_actor>(self->current_sender());
      auto rp = self->make_response_promise<caf::ok_atom>();
      if (c.group_name.empty()) {
        rp.deliver(make_error(errc::invalid_parameter, "empty consumer group"));
        return rp;
      }
      // A consumer's new subscriptions reach the brokers at once too.
      self->state.consumers[c.group_name] = c;
      self->state.consumer_actors[c.group_name] = consumer;
      round(self, [rp]() mutable { rp.deliver(caf::ok_atom::value); });
      return rp;
    },
    [=](caf::delete_atom, producer_atom,
        const std::string& group) -> caf::typed_response_promise<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      auto& ps = self->state.producers;
      auto i = ps.find(group);
      if (i == ps.end() || --i->second > 0) {
        rp.deliver(caf::ok_atom::value);
        return rp;
      }
      ps.erase(i);
      unregister(
        self, unregister_client_request{self->state.cfg.client_id, group, ""},
        rp);
      return rp;
    },
    [=](caf::delete_atom, consumer_atom,
        const std::string& group) -> caf::typed_response_promise<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      self->state.consumer_actors.erase(group);
      if (self->state.consumers.erase(group) == 0) {
        rp.deliver(caf::ok_atom::value);
        return rp;
      }
      unregister(
        self, unregister_client_request{self->state.cfg.client_id, "", group},
        rp);
      return rp;
    },
    [=](const consumer_ids_changed& x) {
      ++self->state.forwarded;
      // The listeners are untyped (consumers' rebalancers): a typed actor
      // cannot send to them.
      for (auto& l : self->state.listeners)
        caf::anon_send(l, x);
    },
    [=](const get_consumer_running_info_request& x)
      -> caf::typed_response_promise<consumer_running_info> {
      auto rp = self->make_response_promise<consumer_running_info>();
      auto& st = self->state;
      auto i = st.consumers.find(x.group);
      if (i == st.consumers.end()) {
        // ClientRemotingProcessor#getConsumerRunningInfo's words.
        rp.deliver(make_error(errc::system_error, "The Consumer Group <"
                                                    + x.group
                                                    + "> not exist in this "
                                                      "consumer"));
        return rp;
      }
      auto group = i->second;
      auto answer = [rp, group](const nlohmann::json& dump) mutable {
        rp.deliver(consumer_running_info{remoting::consumer_running_info_body(
          consumer_running_report(group, dump))});
      };
      auto a = st.consumer_actors.find(x.group);
      if (a == st.consumer_actors.end() || !a->second) {
        RMQ_WARN(component,
                 "running info of " << x.group << ": no consumer actor known");
        answer(nullptr);
        return rp;
      }
      self->request(a->second, st.cfg.request_timeout, dump_atom::value)
        .then(
          [answer](const std::string& dump) mutable {
            answer(nlohmann::json::parse(dump, nullptr, false));
          },
          // What the heartbeat knows, without the queues.
          [answer, group = x.group](const caf::error& err) mutable {
            RMQ_WARN(component, "running info of "
                                  << group
                                  << " without its queues: " << describe(err));
            answer(nullptr);
          });
      return rp;
    },
    [=](caf::subscribe_atom, const caf::actor& l) {
      auto& ls = self->state.listeners;
      if (!l || std::find(ls.begin(), ls.end(), l) != ls.end())
        return;
      ls.push_back(l);
      self->monitor(l);
    },
    [=](caf::tick_atom) {
      round(self, [] {});
      arm(self);
    },
    [=](const check_transaction_state& x) {
      auto& st = self->state;
      auto i = st.transaction_producers.find(x.producer_group);
      if (i == st.transaction_producers.end()) {
        // RocketMQ ClientRemotingProcessor: "pick producer by group
        // failed", dropped; the broker asks another member or again later.
        ++st.checks_dropped;
        RMQ_WARN(component, "check-back of " << x.msg_id << " from "
                                             << x.broker_addr
                                             << ": no transaction producer "
                                                "of group "
                                             << x.producer_group);
        return;
      }
      ++st.checks_forwarded;
      // One producer answers, as RocketMQ's selectProducer (one per group
      // and process); the first subscribed.
      self->send(i->second.front(), x);
    },
    [=](caf::subscribe_atom, transaction_atom, const std::string& group,
        const transaction_check_listener_actor& x) {
      if (!x)
        return;
      auto& xs = self->state.transaction_producers[group];
      if (std::find(xs.begin(), xs.end(), x) != xs.end())
        return;
      xs.push_back(x);
      self->monitor(x);
    },
    [=](push_reply_message& x) {
      auto& st = self->state;
      if (!st.cfg.requests) {
        RMQ_WARN(component, "dropped a pushed reply: no request holder");
        return;
      }
      ++st.forwarded_replies;
      self->send(st.cfg.requests, std::move(x));
    },
    [=](heartbeat_atom) -> caf::typed_response_promise<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      round(self, [rp]() mutable { rp.deliver(caf::ok_atom::value); });
      return rp;
    },
    dump_handler(self),
  };
}

nlohmann::json client_heartbeat_state::dump_fields() const {
  auto groups = nlohmann::json::array();
  for (auto& [group, n] : producers)
    groups.push_back({{"group", group}, {"producers", n}});
  auto cs = nlohmann::json::array();
  for (auto& [group, c] : consumers)
    cs.push_back(c);
  auto rows = nlohmann::json::array();
  for (auto& [addr, p] : peers)
    rows.push_back({{"address", addr},
                    {"broker_name", p.broker_name},
                    {"heartbeats", p.heartbeats},
                    {"failures", p.failures},
                    {"last_error", p.last_error}});
  auto txn = nlohmann::json::object();
  for (auto& [group, xs] : transaction_producers)
    txn[group] = xs.size();
  return {
    {"client_id", cfg.client_id},
    {"producer_groups", groups},
    {"consumers", cs},
    {"brokers", rows},
    {"rounds", rounds},
    {"rounds_in_flight", rounds_in_flight},
    {"forwarded", forwarded},
    {"forwarded_replies", forwarded_replies},
    {"listeners", listeners.size()},
    {"transaction_producers", txn},
    {"checks_forwarded", checks_forwarded},
    {"checks_dropped", checks_dropped},
    {"interval_ms", ms(cfg.interval)},
  };
}

} // namespace rmq
