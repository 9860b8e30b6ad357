// Stand-ins for the network of a client instance on the virtual clock:
// NameServers (client_namesrv_actor) and brokers (client_broker_actor)
// whose answers a test sets, and a peer directory that hands them out by
// address, refuses the addresses that are down and records what it is
// asked. Also what the other stub brokers share (send_loop_stubs.hpp,
// transaction_stubs.hpp): the refusals of the requests they do not script.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "caf/actor_cast.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_properties.hpp"

namespace rmq::test {

// -- shared by the stub brokers -----------------------------------------------

/// The value of property `key` in encoded properties, empty if none.
inline std::string property_of(const std::string& props,
                               const std::string& key) {
  auto xs = decode_properties(props);
  if (xs)
    for (auto& [k, v] : *xs)
      if (k == key)
        return v;
  return {};
}

/// A stub broker's answer to a request it does not script.
inline caf::error refused_by_stub() {
  return make_error(errc::request_code_not_supported, "stub broker");
}

/// Returns `Actor`'s behaviour: `handlers` (sends, heartbeats, and what
/// `Actor` adds to client_broker_actor) plus refusals of the consumer's
/// requests (pulls, send-backs, members, locks, offsets).
template <class Actor, class... Handlers>
typename Actor::behavior_type refusing_consumer_requests(Handlers... handlers) {
  return {
    std::move(handlers)...,
    [](const pull_message_request&) -> caf::result<pull_message_result> {
      return refused_by_stub();
    },
    [](const consumer_send_back_request&) -> caf::result<caf::ok_atom> {
      return refused_by_stub();
    },
    [](const get_consumer_list_request&) -> caf::result<consumer_list> {
      return refused_by_stub();
    },
    [](const lock_batch_request&) -> caf::result<locked_queues> {
      return refused_by_stub();
    },
    [](const unlock_batch_request&) -> caf::result<caf::ok_atom> {
      return refused_by_stub();
    },
    [](const query_offset_request&) -> caf::result<int64_t> {
      return refused_by_stub();
    },
    [](const update_offset_request&) -> caf::result<caf::ok_atom> {
      return refused_by_stub();
    },
    [](const get_offset_request&) -> caf::result<queue_offsets> {
      return refused_by_stub();
    },
    [](const search_offset_request&) -> caf::result<int64_t> {
      return refused_by_stub();
    },
  };
}

// -- client instance network --------------------------------------------------

/// What a stub NameServer knows and was asked.
struct namesrv_stub {
  /// Topics it knows; others are topic_not_exist.
  std::map<std::string, topic_route_data> routes;
  /// Never answers (its promises are kept here).
  bool hung = false;
  std::vector<caf::typed_response_promise<topic_route_data>> stalled;
  /// Route requests by topic.
  std::map<std::string, int> asked;

  int total() const {
    int n = 0;
    for (auto& [topic, k] : asked)
      n += k;
    return n;
  }
};

inline client_namesrv_actor::behavior_type
stub_namesrv(client_namesrv_actor::pointer self,
             std::shared_ptr<namesrv_stub> st) {
  return {
    [=](const get_route_info_request& req)
      -> caf::typed_response_promise<topic_route_data> {
      auto rp = self->make_response_promise<topic_route_data>();
      ++st->asked[req.topic];
      if (st->hung) {
        st->stalled.push_back(rp);
        return rp;
      }
      auto i = st->routes.find(req.topic);
      if (i == st->routes.end())
        rp.deliver(make_error(errc::topic_not_exist, req.topic));
      else
        rp.deliver(i->second);
      return rp;
    },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

/// What a stub broker was sent.
struct broker_stub {
  std::vector<client_heartbeat> heartbeats;
  std::vector<unregister_client_request> unregistrations;
  /// The senders of the heartbeats (the client's channel).
  std::vector<caf::actor_addr> channels;
  bool hung = false;
  std::vector<caf::typed_response_promise<caf::ok_atom>> stalled;
};

inline client_broker_actor::behavior_type
stub_broker(client_broker_actor::pointer self,
            std::shared_ptr<broker_stub> st) {
  auto answer = [=]() {
    auto rp = self->make_response_promise<caf::ok_atom>();
    if (st->hung)
      st->stalled.push_back(rp);
    else
      rp.deliver(caf::ok_atom::value);
    return rp;
  };
  return refusing_consumer_requests<client_broker_actor>(
    [=](const send_message_request&) -> caf::result<send_result> {
      return refused_by_stub();
    },
    [=](const client_heartbeat& hb) {
      st->heartbeats.push_back(hb);
      st->channels.push_back(
        caf::actor_cast<caf::actor_addr>(self->current_sender()));
      return answer();
    },
    [=](const unregister_client_request& req) {
      st->unregistrations.push_back(req);
      return answer();
    },
    [](dump_atom) { return std::string{"{}"}; });
}

/// The network as the stub directory sees it.
struct stub_net {
  std::map<std::string, client_namesrv_actor> namesrvs;
  std::map<std::string, client_broker_actor> brokers;
  /// Addresses that refuse connections.
  std::set<std::string> down;
  std::vector<peer_listener_actor> listeners;
  std::vector<std::string> deleted;
  int connects = 0;
};

inline peer_directory_actor::behavior_type
stub_directory(peer_directory_actor::pointer, std::shared_ptr<stub_net> net) {
  return {
    [=](caf::connect_atom,
        const std::string& addr) -> caf::result<client_broker_actor> {
      ++net->connects;
      auto i = net->brokers.find(addr);
      if (net->down.count(addr) > 0 || i == net->brokers.end())
        return caf::make_error(caf::sec::cannot_connect_to_node);
      return i->second;
    },
    [=](caf::connect_atom, route_atom,
        const std::string& addr) -> caf::result<client_namesrv_actor> {
      ++net->connects;
      auto i = net->namesrvs.find(addr);
      if (net->down.count(addr) > 0 || i == net->namesrvs.end())
        return caf::make_error(caf::sec::cannot_connect_to_node);
      return i->second;
    },
    [=](caf::delete_atom, const std::string& addr) {
      net->deleted.push_back(addr);
    },
    [=](caf::subscribe_atom, const peer_listener_actor& l) {
      net->listeners.push_back(l);
    },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

/// A route of `topic` over brokers named `names`, 4 queues each; broker
/// "broker-x" has master "x:10911" and slave "x:10921".
inline topic_route_data route_over(const std::vector<std::string>& names,
                                   int32_t queues = 4) {
  topic_route_data r;
  for (auto& name : names) {
    queue_data q;
    q.broker_name = name;
    q.read_queue_nums = q.write_queue_nums = queues;
    q.perm = perm::read_write;
    r.queue_datas.push_back(q);
    broker_data b;
    b.cluster = "DefaultCluster";
    b.broker_name = name;
    auto host = name.substr(name.find('-') + 1);
    b.broker_addrs[0] = host + ":10911";
    b.broker_addrs[1] = host + ":10921";
    r.broker_datas.push_back(b);
  }
  return r;
}

} // namespace rmq::test
