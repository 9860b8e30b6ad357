#include "actors/client/instance/peer_directory.hpp"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/node_id.hpp"
#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/common/dump.hpp"
#include "actors/common/tcp_prober.hpp"

namespace rmq {

const char* peer_directory_state::name = "peer_directory";

namespace {

constexpr const char* component = "peer_directory";

using directory_ptr
  = peer_directory_actor::stateful_pointer<peer_directory_state>;

/// Answers one waiter from a connected entry: the handle if the peer's
/// interface fits, else why not.
template <class Handle>
void answer(directory_ptr self, const peer_entry& e,
            caf::typed_response_promise<Handle>& rp) {
  auto hdl = handle_from_reply<Handle>(self->system(), e.hdl, e.ifs);
  if (hdl)
    rp.deliver(std::move(*hdl));
  else
    rp.deliver(hdl.error());
}

void answer_all(directory_ptr self, peer_entry& e) {
  for (auto& rp : e.brokers)
    answer(self, e, rp);
  for (auto& rp : e.namesrvs)
    answer(self, e, rp);
  e.brokers.clear();
  e.namesrvs.clear();
}

void fail_all(peer_entry& e, const caf::error& err) {
  for (auto& rp : e.brokers)
    rp.deliver(err);
  for (auto& rp : e.namesrvs)
    rp.deliver(err);
  e.brokers.clear();
  e.namesrvs.clear();
}

void connect_failed(directory_ptr self, const std::string& addr,
                    uint64_t attempt, const caf::error& err) {
  auto i = self->state.peers.find(addr);
  if (i == self->state.peers.end() || i->second.attempt != attempt)
    return;
  auto& e = i->second;
  e.state = peer_entry::status::failed;
  e.last_error = describe(err);
  e.last_failure = err;
  e.failed_at = self->clock().now();
  ++e.failures;
  log_request_failure(component, "connect to " + addr, err);
  fail_all(e, err);
}

void connected(directory_ptr self, const std::string& addr, uint64_t attempt,
               caf::strong_actor_ptr ptr, std::set<std::string> ifs) {
  auto i = self->state.peers.find(addr);
  if (i == self->state.peers.end() || i->second.attempt != attempt)
    return;
  if (!ptr) {
    connect_failed(self, addr, attempt,
                   caf::make_error(caf::sec::no_actor_published_at_port));
    return;
  }
  auto& e = i->second;
  e.state = peer_entry::status::connected;
  e.hdl = std::move(ptr);
  e.ifs = std::move(ifs);
  e.last_error.clear();
  self->monitor(caf::actor_cast<caf::actor>(e.hdl));
  RMQ_INFO(component, "connected to " + addr);
  answer_all(self, e);
}

void start_connect(directory_ptr self, const std::string& addr,
                   const host_port& where) {
  auto& st = self->state;
  auto& e = st.peers[addr];
  e.state = peer_entry::status::connecting;
  e.hdl = nullptr;
  e.ifs.clear();
  e.attempt = ++st.next_attempt;
  ++e.connects;
  auto attempt = e.attempt;
  // The real network: a host that is gone must not hold the process's
  // other connects (actors/common/tcp_prober.hpp).
  auto via = st.probe ? self->spawn<caf::detached>(
               tcp_prober, st.cfg.connector,
               std::chrono::duration_cast<std::chrono::milliseconds>(
                 st.cfg.connect_timeout))
                      : st.cfg.connector;
  self
    ->request(via,
              st.cfg.connect_timeout
                + (st.probe ? caf::timespan{std::chrono::seconds{1}}
                            : caf::timespan{0}),
              caf::connect_atom::value, where.host, where.port)
    .then(
      [=](const caf::node_id&, caf::strong_actor_ptr& ptr,
          std::set<std::string>& ifs) {
        connected(self, addr, attempt, std::move(ptr), std::move(ifs));
      },
      [=](const caf::error& err) { connect_failed(self, addr, attempt, err); });
}

/// The answer for one connect request: at once when connected, else when
/// the (possibly shared) attempt ends.
template <class Handle>
caf::typed_response_promise<Handle> connect_to(
  directory_ptr self, const std::string& addr,
  std::vector<caf::typed_response_promise<Handle>> peer_entry::*waiters) {
  auto rp = self->template make_response_promise<Handle>();
  auto where = parse_host_port(addr);
  if (!where) {
    rp.deliver(make_error(errc::invalid_parameter,
                          "not a host:port address: '" + addr + "'"));
    return rp;
  }
  auto& st = self->state;
  auto i = st.peers.find(addr);
  if (i != st.peers.end() && i->second.state == peer_entry::status::connected) {
    answer(self, i->second, rp);
    return rp;
  }
  // A real host that did not answer within the connect timeout is taken
  // as gone for as long again: the lookups behind it (a consumer's
  // master, then its slave) fail over at once instead of each waiting.
  if (st.probe && i != st.peers.end()
      && i->second.state == peer_entry::status::failed
      && self->clock().now() - i->second.failed_at < st.cfg.connect_timeout) {
    rp.deliver(i->second.last_failure);
    return rp;
  }
  bool in_flight = i != st.peers.end()
                   && i->second.state == peer_entry::status::connecting;
  (st.peers[addr].*waiters).push_back(rp);
  if (!in_flight)
    start_connect(self, addr, *where);
  return rp;
}

/// Forgets every address served by the actor at `source` (two spellings of
/// one address share one proxy); returns them.
std::vector<std::string> forget_peer(directory_ptr self,
                                     const caf::actor_addr& source) {
  std::vector<std::string> lost;
  auto& peers = self->state.peers;
  for (auto i = peers.begin(); i != peers.end();) {
    auto& e = i->second;
    if (e.state == peer_entry::status::connected && e.hdl
        && e.hdl->address() == source) {
      lost.push_back(i->first);
      i = peers.erase(i);
    } else {
      ++i;
    }
  }
  return lost;
}

} // namespace

peer_directory_actor::behavior_type peer_directory(directory_ptr self,
                                                   peer_directory_config cfg) {
  if (!cfg.connector) {
    cfg.connector = caf::actor_cast<caf::actor>(connector(self->system()));
    self->state.probe = true;
  }
  self->state.cfg = std::move(cfg);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto lost = forget_peer(self, dm.source);
    auto& ls = self->state.listeners;
    if (lost.empty()) {
      ls.erase(std::remove_if(ls.begin(), ls.end(),
                              [&](const peer_listener_actor& l) {
                                return l.address() == dm.source;
                              }),
               ls.end());
      return;
    }
    for (auto& addr : lost) {
      RMQ_INFO(component, "lost " + addr + " (" + describe(dm.reason) + ")");
      for (auto& l : ls)
        self->send(l, peer_lost_atom::value, addr);
    }
  });
  return {
    [=](caf::connect_atom, const std::string& addr) {
      return connect_to<client_broker_actor>(self, addr, &peer_entry::brokers);
    },
    [=](caf::connect_atom, route_atom, const std::string& addr) {
      return connect_to<client_namesrv_actor>(self, addr,
                                              &peer_entry::namesrvs);
    },
    [=](caf::delete_atom, const std::string& addr) {
      // A connect in flight keeps its waiters: it ends on its own bound.
      auto& peers = self->state.peers;
      auto i = peers.find(addr);
      if (i != peers.end() && i->second.state != peer_entry::status::connecting)
        peers.erase(i);
    },
    [=](caf::subscribe_atom, const peer_listener_actor& l) {
      if (!l)
        return;
      auto& ls = self->state.listeners;
      if (std::find(ls.begin(), ls.end(), l) != ls.end())
        return;
      ls.push_back(l);
      self->monitor(l);
    },
    dump_handler(self),
  };
}

nlohmann::json peer_directory_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [addr, e] : peers) {
    const char* state = e.state == peer_entry::status::connected ? "connected"
                        : e.state == peer_entry::status::connecting
                          ? "connecting"
                          : "failed";
    rows.push_back({
      {"address", addr},
      {"state", state},
      {"last_error", e.last_error},
      {"connects", e.connects},
      {"failures", e.failures},
      {"waiting", e.brokers.size() + e.namesrvs.size()},
    });
  }
  return {
    {"connect_timeout_ms",
     std::chrono::duration_cast<std::chrono::milliseconds>(cfg.connect_timeout)
       .count()},
    {"peers", rows},
    {"listeners", listeners.size()},
  };
}

} // namespace rmq
