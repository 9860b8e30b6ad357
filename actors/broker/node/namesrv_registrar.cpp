#include "actors/broker/node/namesrv_registrar.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/node_id.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/net/connect.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* namesrv_registrar_state::name = "namesrv_registrar";

namespace {

constexpr const char* component = "namesrv_registrar";

using registrar_ptr
  = namesrv_registrar_actor::stateful_pointer<namesrv_registrar_state>;

int64_t now_ms(registrar_ptr self) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

void event(registrar_ptr self, const std::string& line) {
  RMQ_INFO(component, line);
  if (self->state.opts.on_event)
    self->state.opts.on_event(line);
}

void fail(namesrv_peer& p, const std::string& what, const caf::error& err) {
  ++p.failures;
  p.last_error = describe(err);
  log_request_failure(component, what + " " + p.addr, err);
}

register_broker_request make_registration(const namesrv_registrar_options& o) {
  register_broker_request req;
  req.cluster_name = o.cluster_name;
  req.broker_addr = o.broker_addr;
  req.broker_name = o.broker_name;
  req.broker_id = o.broker_id;
  req.ha_server_addr = o.ha_server_addr;
  req.remoting_addr = o.remoting_addr;
  req.zone_name = o.zone_name;
  req.heartbeat_timeout_ms = o.heartbeat_timeout_ms;
  req.enable_acting_master = o.enable_acting_master;
  req.version = o.topics.version;
  req.version.state_version = o.state_version;
  req.topics = o.topics.topics;
  return req;
}

// A NameServer that is down is tried every heartbeat: only the first
// failure of a streak is logged and reported, the dump counts the rest.
void connect_failed(registrar_ptr self, namesrv_peer& p,
                    const caf::error& err) {
  ++p.failures;
  p.last_error = describe(err);
  if (p.connect_failures++ > 0)
    return;
  log_request_failure(component, "connect to " + p.addr, err);
  event(self, "cannot connect to " + p.addr + ": " + describe(err));
}

void register_with(registrar_ptr self, size_t i) {
  auto& st = self->state;
  auto& p = st.peers[i];
  if (!p.hdl || st.stopping)
    return;
  ++p.registering;
  auto req = st.registration;
  self->request(p.hdl, st.opts.register_timeout, req)
    .then(
      [=](const register_broker_result& res) {
        auto& p = self->state.peers[i];
        --p.registering;
        ++p.registrations;
        p.last_registration_ms = now_ms(self);
        p.last_result = "ok";
        p.retried_not_found = false;
        p.registered_version = req.version;
        p.master_addr = res.master_addr;
        p.ha_server_addr = res.ha_server_addr;
        if (!res.master_addr.empty()) {
          self->state.master_known = true;
          // Slaves copy from the master's brokerIP2 (haServerAddr), else
          // its broker address.
          if (self->state.opts.on_master)
            self->state.opts.on_master(res.ha_server_addr.empty()
                                         ? res.master_addr
                                         : res.ha_server_addr);
        }
        event(self, "registered with " + p.addr);
      },
      [=](const caf::error& err) {
        auto& p = self->state.peers[i];
        --p.registering;
        p.last_result = describe(err);
        fail(p, "registration with", err);
        // Retried at once, but once per streak: a NameServer that keeps
        // answering so gets the next heartbeat's or round's registration.
        if (err == errc::broker_not_found && !p.retried_not_found) {
          p.retried_not_found = true;
          register_with(self, i);
        }
      });
}

void connect(registrar_ptr self, size_t i) {
  auto& st = self->state;
  auto& p = st.peers[i];
  if (p.hdl || p.connecting || st.stopping)
    return;
  p.connecting = true;
  self
    ->request(st.opts.connector, st.opts.connect_timeout,
              caf::connect_atom::value, p.where.host, p.where.port)
    .then(
      [=](const caf::node_id&, caf::strong_actor_ptr& ptr,
          const std::set<std::string>& ifs) {
        auto& p = self->state.peers[i];
        p.connecting = false;
        auto hdl = handle_from_reply<namesrv_actor>(self->system(),
                                                    std::move(ptr), ifs);
        if (!hdl) {
          connect_failed(self, p, hdl.error());
          return;
        }
        p.connect_failures = 0;
        p.hdl = std::move(*hdl);
        self->monitor(p.hdl);
        event(self, "connected to " + p.addr);
        register_with(self, i);
      },
      [=](const caf::error& err) {
        auto& p = self->state.peers[i];
        p.connecting = false;
        connect_failed(self, p, err);
      });
}

void heartbeat(registrar_ptr self, size_t i) {
  auto& st = self->state;
  auto& p = st.peers[i];
  // A registration in flight is a heartbeat too; a heartbeat ahead of it
  // would only be answered broker_not_found.
  if (!p.hdl || p.registering > 0 || st.stopping)
    return;
  auto& reg = st.registration;
  broker_heartbeat_request hb{reg.cluster_name, reg.broker_addr,
                              reg.broker_name, reg.broker_id};
  self->request(p.hdl, st.opts.heartbeat_request_timeout, hb)
    .then([=](caf::ok_atom) { ++self->state.peers[i].heartbeats; },
          [=](const caf::error& err) {
            auto& p = self->state.peers[i];
            fail(p, "heartbeat to", err);
            // The NameServer lost us (restart, timeout, operator): register
            // now, not at the next round.
            if (err == errc::broker_not_found) {
              event(self, p.addr + " does not know us: registering again");
              register_with(self, i);
            }
          });
}

/// Connected peers get a registration, the others a connect (which
/// registers once connected).
void register_all(registrar_ptr self) {
  for (size_t i = 0; i < self->state.peers.size(); ++i) {
    if (self->state.peers[i].hdl)
      register_with(self, i);
    else
      connect(self, i);
  }
}

void finish_stop(registrar_ptr self) {
  auto& st = self->state;
  if (st.unregistering > 0)
    return;
  for (auto& rp : st.stop_waiters)
    rp.deliver(caf::ok_atom::value);
  st.stop_waiters.clear();
  self->quit();
}

caf::timespan bounded_register_interval(caf::timespan x) {
  using namespace std::chrono;
  return std::clamp<caf::timespan>(x, seconds{10}, seconds{60});
}

} // namespace

namesrv_registrar_actor::behavior_type
namesrv_registrar(registrar_ptr self, namesrv_registrar_options opts) {
  auto& st = self->state;
  if (!opts.connector)
    opts.connector = caf::actor_cast<caf::actor>(connector(self->system()));
  opts.register_interval = bounded_register_interval(opts.register_interval);
  st.opts = std::move(opts);
  st.registration = make_registration(st.opts);
  for (auto& where : st.opts.namesrv_addrs) {
    namesrv_peer p;
    p.where = where;
    p.addr = where.to_string();
    st.peers.push_back(std::move(p));
  }
  self->set_down_handler([=](caf::down_msg& dm) {
    for (auto& p : self->state.peers)
      if (p.hdl && p.hdl.address() == dm.source) {
        p.hdl = nullptr;
        event(self, "lost " + p.addr + " (" + describe(dm.reason) + ")");
      }
  });
  // Registers at once and arms both rounds.
  auto begin = [self] {
    auto& st = self->state;
    st.open = true;
    register_all(self);
    self->delayed_send(self, st.opts.register_interval,
                       register_round_atom::value);
    if (st.opts.heartbeat_interval.count() > 0)
      self->delayed_send(self, st.opts.heartbeat_interval,
                         heartbeat_round_atom::value);
  };
  if (!st.opts.wait_for_open)
    begin();
  return {
    [=](caf::open_atom) {
      if (!self->state.open && !self->state.stopping)
        begin();
    },
    [=](caf::put_atom, topic_config_set& topics) {
      auto& st = self->state;
      if (st.stopping)
        return;
      st.opts.topics = std::move(topics);
      st.registration = make_registration(st.opts);
      if (st.open)
        register_all(self);
    },
    [=](caf::delete_atom) -> caf::typed_response_promise<caf::ok_atom> {
      auto& st = self->state;
      auto rp = self->make_response_promise<caf::ok_atom>();
      st.stop_waiters.push_back(rp);
      if (st.stopping)
        return rp; // answered when the first stop is done
      st.stopping = true;
      auto& reg = st.registration;
      unregister_broker_request req{reg.cluster_name, reg.broker_addr,
                                    reg.broker_name, reg.broker_id};
      for (size_t i = 0; i < st.peers.size(); ++i) {
        auto& p = st.peers[i];
        // A NameServer we are not connected to has already dropped us: it
        // saw our connection close.
        if (!p.hdl)
          continue;
        ++st.unregistering;
        self->request(p.hdl, st.opts.unregister_timeout, req)
          .then(
            [=](caf::ok_atom) {
              --self->state.unregistering;
              event(self, "unregistered from " + self->state.peers[i].addr);
              finish_stop(self);
            },
            [=](const caf::error& err) {
              --self->state.unregistering;
              fail(self->state.peers[i], "unregistration from", err);
              finish_stop(self);
            });
      }
      finish_stop(self);
      return rp;
    },
    [=](register_round_atom) {
      auto& st = self->state;
      if (st.stopping)
        return;
      register_all(self);
      self->delayed_send(self, st.opts.register_interval,
                         register_round_atom::value);
    },
    [=](heartbeat_round_atom) {
      auto& st = self->state;
      if (st.stopping)
        return;
      // A lost NameServer is connected again here, as RocketMQ opens a new
      // channel on the next heartbeat: a restarted one gets us back within
      // a heartbeat interval.
      auto want_master = st.registration.broker_id != 0 && !st.master_known;
      for (size_t i = 0; i < st.peers.size(); ++i) {
        if (!st.peers[i].hdl)
          connect(self, i);
        else if (want_master && st.peers[i].registering == 0)
          register_with(self, i);
        else
          heartbeat(self, i);
      }
      self->delayed_send(self, st.opts.heartbeat_interval,
                         heartbeat_round_atom::value);
    },
    dump_handler(self),
  };
}

nlohmann::json namesrv_registrar_state::dump_fields() const {
  auto namesrvs = nlohmann::json::array();
  for (auto& p : peers)
    namesrvs.push_back({
      {"address", p.addr},
      {"connected", static_cast<bool>(p.hdl)},
      {"connecting", p.connecting},
      {"registrations", p.registrations},
      {"heartbeats", p.heartbeats},
      {"failures", p.failures},
      {"connect_failures", p.connect_failures},
      {"last_registration_ms", p.last_registration_ms},
      {"last_result", p.last_result},
      {"last_error", p.last_error},
      {"registered_version", p.registered_version},
      {"master_addr", p.master_addr},
      {"ha_server_addr", p.ha_server_addr},
    });
  return {
    {"cluster_name", registration.cluster_name},
    {"broker_name", registration.broker_name},
    {"broker_addr", registration.broker_addr},
    {"broker_id", registration.broker_id},
    {"data_version", registration.version},
    {"topics", registration.topics.size()},
    {"register_interval_ms",
     std::chrono::duration_cast<std::chrono::milliseconds>(
       opts.register_interval)
       .count()},
    {"heartbeat_interval_ms",
     std::chrono::duration_cast<std::chrono::milliseconds>(
       opts.heartbeat_interval)
       .count()},
    {"open", open},
    {"stopping", stopping},
    {"namesrvs", namesrvs},
  };
}

} // namespace rmq
