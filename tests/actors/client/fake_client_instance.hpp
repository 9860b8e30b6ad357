// Fakes of a client instance's actors and of the NameServers behind it, for
// the client tests: a route cache, a peer directory, a heartbeat sender and
// a rebalance service that answer from what the test set and record what
// they are asked, a NameServer with scripted routes, and a rebalance
// target that records its assignments. A test that checks one real actor
// of the instance spawns it with fakes for the others; brokers are
// tests/support/fake_broker.hpp's. Each fake's book is shared with the
// test, which reads and changes it between steps.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "caf/actor.hpp"
#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/sec.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/instance/latency_fault_service.hpp"
#include "messages/client/client.hpp"
#include "messages/client/consumer.hpp"
#include "messages/common/errors.hpp"

namespace rmq::test {

// -- NameServer ---------------------------------------------------------------

struct fake_namesrv {
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
play_namesrv(client_namesrv_actor::pointer self,
             std::shared_ptr<fake_namesrv> st) {
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

// -- peer directory -----------------------------------------------------------

/// The network as the fake directory hands it out.
struct fake_directory {
  std::map<std::string, client_namesrv_actor> namesrvs;
  std::map<std::string, client_broker_actor> brokers;
  /// Addresses that refuse connections.
  std::set<std::string> down;
  /// Every address asked for, brokers and NameServers alike.
  std::vector<std::string> connects;
  /// Addresses told to be forgotten (their peer failed a request).
  std::vector<std::string> forgotten;
  std::vector<peer_listener_actor> listeners;
};

inline peer_directory_actor::behavior_type
play_directory(peer_directory_actor::pointer,
               std::shared_ptr<fake_directory> st) {
  // The entry of `addr` in `xs`, or cannot_connect_to_node.
  auto lookup = [st](const auto& xs, const std::string& addr)
    -> caf::result<typename std::decay_t<decltype(xs)>::mapped_type> {
    st->connects.push_back(addr);
    auto i = xs.find(addr);
    if (st->down.count(addr) > 0 || i == xs.end())
      return caf::make_error(caf::sec::cannot_connect_to_node);
    return i->second;
  };
  return {
    [=](caf::connect_atom, const std::string& addr) {
      return lookup(st->brokers, addr);
    },
    [=](caf::connect_atom, route_atom, const std::string& addr) {
      return lookup(st->namesrvs, addr);
    },
    [=](caf::delete_atom, const std::string& addr) {
      st->forgotten.push_back(addr);
    },
    [=](caf::subscribe_atom, const peer_listener_actor& l) {
      st->listeners.push_back(l);
    },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// -- route cache --------------------------------------------------------------

struct fake_route_cache {
  std::map<std::string, topic_route_data> routes;
  /// Topics whose route requests fail (service_not_available).
  std::set<std::string> failing;
  /// Route requests by topic.
  std::map<std::string, int> asked;
  std::vector<std::string> refreshed;
  std::vector<route_listener_actor> listeners;
};

inline route_cache_actor::behavior_type
play_route_cache(route_cache_actor::pointer,
                 std::shared_ptr<fake_route_cache> st) {
  return {
    [=](route_atom, const std::string& topic) -> caf::result<topic_route_data> {
      ++st->asked[topic];
      if (st->failing.count(topic) > 0)
        return make_error(errc::service_not_available, "fake: " + topic);
      auto i = st->routes.find(topic);
      if (i == st->routes.end())
        return make_error(errc::topic_not_exist, "no route of " + topic);
      return i->second;
    },
    [=](refresh_atom, const std::string& topic) {
      st->refreshed.push_back(topic);
    },
    // The brokers of all routes, once each (whom heartbeats go to).
    [=](brokers_atom) {
      std::map<std::string, broker_data> xs;
      for (auto& [topic, r] : st->routes)
        for (auto& b : r.broker_datas)
          xs[b.broker_name] = b;
      std::vector<broker_data> result;
      for (auto& [name, b] : xs)
        result.push_back(b);
      return result;
    },
    [=](caf::subscribe_atom, const route_listener_actor& x) {
      st->listeners.push_back(x);
    },
    [](peer_lost_atom, const std::string&) {},
    [](tick_atom) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// -- heartbeat sender ---------------------------------------------------------

struct fake_heartbeats {
  /// Producer groups registered.
  std::vector<std::string> producers;
  /// Consumer groups registered.
  std::vector<consumer_data> consumers;
  /// Groups unregistered, producers' and consumers' alike.
  std::vector<std::string> unregistered;
  /// Rounds asked for with heartbeat_atom (requests to new topics).
  int rounds = 0;
};

inline client_heartbeat_service_actor::behavior_type
play_heartbeats(client_heartbeat_service_actor::pointer,
                std::shared_ptr<fake_heartbeats> st) {
  return {
    [=](producer_atom, const std::string& group) {
      st->producers.push_back(group);
      return caf::ok_atom::value;
    },
    [=](consumer_atom, const consumer_data& c) {
      st->consumers.push_back(c);
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, producer_atom, const std::string& group) {
      st->unregistered.push_back(group);
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, consumer_atom, const std::string& group) {
      st->unregistered.push_back(group);
      return caf::ok_atom::value;
    },
    [=](heartbeat_atom) {
      ++st->rounds;
      return caf::ok_atom::value;
    },
    [](const consumer_ids_changed&) {},
    [](const get_consumer_running_info_request&) {
      return consumer_running_info{};
    },
    [](caf::subscribe_atom, const caf::actor&) {},
    [](tick_atom) {},
    [](const check_transaction_state&) {},
    [](caf::subscribe_atom, transaction_atom, const std::string&,
       const transaction_check_listener_actor&) {},
    [](const push_reply_message&) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// -- rebalance service and target ---------------------------------------------

struct fake_rebalance {
  std::vector<rebalance_subscription> registered;
  int removed = 0;
};

inline rebalance_service_actor::behavior_type
play_rebalance(rebalance_service_actor::pointer,
               std::shared_ptr<fake_rebalance> st) {
  return {
    [=](caf::put_atom, const rebalance_subscription& sub,
        const rebalance_target_actor&) {
      st->registered.push_back(sub);
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, const rebalance_target_actor&) { ++st->removed; },
    [](rebalance_atom) {},
    [](const consumer_ids_changed&) {},
    [](tick_atom) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

/// What a recording target was assigned, in order.
struct target_log {
  std::vector<queue_assignment> got;
};

inline rebalance_target_actor::behavior_type
recording_target(rebalance_target_actor::pointer,
                 std::shared_ptr<target_log> log) {
  return {
    [=](assign_atom, const queue_assignment& a) { log->got.push_back(a); },
  };
}

// -- client instance ----------------------------------------------------------

/// The books of a fake client instance, for a fixture to inherit.
struct instance_books {
  std::shared_ptr<fake_route_cache> routes
    = std::make_shared<fake_route_cache>();
  std::shared_ptr<fake_directory> dir = std::make_shared<fake_directory>();
  std::shared_ptr<fake_heartbeats> hb = std::make_shared<fake_heartbeats>();

  /// Fills `inst` with the fake directory, route cache and heartbeat
  /// sender over these books and the real latency-fault service, each
  /// made by `spawn(fn, args...)` (a fixture's spawn, or one that also
  /// keeps the handle for shutdown).
  template <class Spawn>
  void spawn_instance(client_instance& inst, Spawn spawn) const {
    inst.directory = spawn(play_directory, dir);
    inst.routes = spawn(play_route_cache, routes);
    inst.heartbeats = spawn(play_heartbeats, hb);
    inst.faults = spawn(latency_fault_service, inst.config.faults);
  }
};

/// A spawn for spawn_instance on a threaded actor system: keeps each
/// handle in `out`, for the fixture to stop.
inline auto spawn_into(caf::actor_system& sys, std::vector<caf::actor>& out) {
  return [&sys, &out](auto&&... xs) {
    auto hdl = sys.spawn(std::forward<decltype(xs)>(xs)...);
    out.push_back(caf::actor_cast<caf::actor>(hdl));
    return hdl;
  };
}

// -- routes -------------------------------------------------------------------

/// A route over brokers named `names`, `queues` read/write queues each;
/// broker "broker-x" has master "x:10911" and slave "x:10921".
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
