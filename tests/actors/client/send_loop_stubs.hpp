// Stand-ins for a client instance's actors and for brokers, for the
// virtual-time tests of the send loop (client_stubs.hpp has the client
// instance's own, and the refusals every stub broker shares): a route
// cache answering from a map, a peer directory mapping addresses to stub
// brokers, a heartbeat sender that records groups, and brokers that
// answer, fail or stay silent as their script says. The scripts are
// shared with the test (one thread on the deterministic coordinator), so
// a test changes a broker's behaviour and reads what it received between
// steps.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "caf/actor.hpp"
#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/sec.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/instance/latency_fault_service.hpp"
#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_properties.hpp"
#include "tests/actors/client/client_stubs.hpp"

namespace rmq::test::send_stubs {

// -- broker -------------------------------------------------------------------

struct broker_script {
  enum class mode { answer, fail, silent, hold };
  /// answer: send_ok at once; fail: `error` at once; silent: never
  /// answers; hold: keeps the request until release_held().
  mode how = mode::answer;
  caf::error error;
  uint8_t status = 0;
  std::vector<send_message_request> received;
  /// The requests of SEND_REPLY_MESSAGE (answered as sends).
  std::vector<send_message_request> replies;
  /// received.size(), readable from another thread (facade tests).
  std::atomic<size_t> count{0};
  std::vector<
    std::pair<send_message_request, caf::typed_response_promise<send_result>>>
    held;
  int64_t next_offset = 0;
};

/// The UNIQ_KEYs of a request, one per message (a batch has several).
inline std::vector<std::string> uniq_keys_of(const send_message_request& req) {
  std::vector<std::string> out;
  if (!req.batch) {
    out.push_back(property_of(req.properties, property_uniq_key));
    return out;
  }
  auto entries = decode_batch(req.body);
  if (entries)
    for (auto& e : *entries)
      out.push_back(property_of(e.properties, property_uniq_key));
  return out;
}

/// The broker's answer to `req`: one offset per message, counting
/// up from the script's next offset.
inline send_result answer_for(broker_script& s,
                              const send_message_request& req) {
  send_result res;
  res.status = s.status;
  res.queue_id = req.queue_id;
  res.queue_offset = s.next_offset;
  for (auto& key : uniq_keys_of(req)) {
    auto off = s.next_offset++;
    res.queue_offsets.push_back(off);
    if (!res.msg_id.empty()) {
      res.msg_id += ",";
      res.offset_msg_id += ",";
    }
    res.msg_id += key;
    res.offset_msg_id += "OFF" + std::to_string(off);
  }
  return res;
}

/// Tells a stub broker to answer its held requests (a promise must be
/// delivered from its actor's context).
using release_atom = caf::atom_constant<caf::atom("release")>;

using broker_stub_actor = client_broker_actor::extend<
  caf::reacts_to<release_atom>,
  caf::replies_to<send_reply_message_request>::with<send_result>>;

/// Answers every held request of `s`.
inline void release_held(broker_script& s) {
  auto held = std::move(s.held);
  s.held.clear();
  for (auto& [req, rp] : held)
    rp.deliver(answer_for(s, req));
}

struct broker_stub_state {
  std::shared_ptr<broker_script> script;
};

inline broker_stub_actor::behavior_type
broker_stub(broker_stub_actor::stateful_pointer<broker_stub_state> self,
            std::shared_ptr<broker_script> script) {
  self->state.script = std::move(script);
  return refusing_consumer_requests<broker_stub_actor>(
    [=](dump_atom) { return std::string{"{}"}; },
    [=](release_atom) { release_held(*self->state.script); },
    [=](const send_message_request& req) -> caf::result<send_result> {
      auto& s = *self->state.script;
      s.received.push_back(req);
      ++s.count;
      switch (s.how) {
        case broker_script::mode::answer:
          return answer_for(s, req);
        case broker_script::mode::fail:
          return s.error;
        case broker_script::mode::silent:
        case broker_script::mode::hold: {
          auto rp = self->make_response_promise<send_result>();
          s.held.emplace_back(req, rp);
          return rp;
        }
      }
      return s.error;
    },
    [=](const send_reply_message_request& x) {
      auto& s = *self->state.script;
      s.replies.push_back(x.request);
      return answer_for(s, x.request);
    },
    [=](const client_heartbeat&) { return caf::ok_atom::value; },
    [=](const unregister_client_request&) { return caf::ok_atom::value; });
}

// -- route cache --------------------------------------------------------------

struct route_book {
  std::map<std::string, topic_route_data> routes;
  std::vector<std::string> asked;
  std::vector<std::string> refreshed;
  std::vector<route_listener_actor> listeners;
};

struct route_stub_state {
  std::shared_ptr<route_book> book;
};

inline route_cache_actor::behavior_type
route_stub(route_cache_actor::stateful_pointer<route_stub_state> self,
           std::shared_ptr<route_book> book) {
  self->state.book = std::move(book);
  return {
    [=](dump_atom) { return std::string{"{}"}; },
    [=](route_atom, const std::string& topic) -> caf::result<topic_route_data> {
      auto& b = *self->state.book;
      b.asked.push_back(topic);
      auto i = b.routes.find(topic);
      if (i == b.routes.end())
        return make_error(errc::topic_not_exist, "no route of " + topic);
      return i->second;
    },
    [=](refresh_atom, const std::string& topic) {
      self->state.book->refreshed.push_back(topic);
    },
    [=](brokers_atom) { return std::vector<broker_data>{}; },
    [=](caf::subscribe_atom, const route_listener_actor& x) {
      self->state.book->listeners.push_back(x);
    },
    [=](peer_lost_atom, const std::string&) {},
    [=](caf::tick_atom) {},
  };
}

// -- peer directory -----------------------------------------------------------

struct directory_book {
  std::map<std::string, client_broker_actor> brokers;
  std::vector<std::string> connects;
  std::vector<std::string> forgotten;
  std::vector<peer_listener_actor> listeners;
};

struct directory_stub_state {
  std::shared_ptr<directory_book> book;
};

inline peer_directory_actor::behavior_type directory_stub(
  peer_directory_actor::stateful_pointer<directory_stub_state> self,
  std::shared_ptr<directory_book> book) {
  self->state.book = std::move(book);
  return {
    [=](dump_atom) { return std::string{"{}"}; },
    [=](caf::connect_atom,
        const std::string& addr) -> caf::result<client_broker_actor> {
      auto& b = *self->state.book;
      b.connects.push_back(addr);
      auto i = b.brokers.find(addr);
      if (i == b.brokers.end())
        return caf::make_error(caf::sec::cannot_connect_to_node);
      return i->second;
    },
    [=](caf::connect_atom, route_atom,
        const std::string&) -> caf::result<client_namesrv_actor> {
      return caf::make_error(caf::sec::cannot_connect_to_node);
    },
    [=](caf::delete_atom, const std::string& addr) {
      self->state.book->forgotten.push_back(addr);
    },
    [=](caf::subscribe_atom, const peer_listener_actor& x) {
      self->state.book->listeners.push_back(x);
    },
  };
}

// -- heartbeat sender ---------------------------------------------------------

struct heartbeat_book {
  std::vector<std::string> producers;
  std::vector<std::string> unregistered;
  /// Rounds asked for with heartbeat_atom (requests to new topics).
  int rounds = 0;
};

struct heartbeat_stub_state {
  std::shared_ptr<heartbeat_book> book;
};

inline client_heartbeat_service_actor::behavior_type heartbeat_stub(
  client_heartbeat_service_actor::stateful_pointer<heartbeat_stub_state> self,
  std::shared_ptr<heartbeat_book> book) {
  self->state.book = std::move(book);
  return {
    [=](dump_atom) { return std::string{"{}"}; },
    [=](producer_atom, const std::string& group) {
      self->state.book->producers.push_back(group);
      return caf::ok_atom::value;
    },
    [=](consumer_atom, const consumer_data&) { return caf::ok_atom::value; },
    [=](caf::delete_atom, producer_atom, const std::string& group) {
      self->state.book->unregistered.push_back(group);
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, consumer_atom, const std::string&) {
      return caf::ok_atom::value;
    },
    [=](const consumer_ids_changed&) {},
    [=](caf::subscribe_atom, const caf::actor&) {},
    [=](caf::tick_atom) {},
    [=](const check_transaction_state&) {},
    [=](caf::subscribe_atom, transaction_atom, const std::string&,
        const transaction_check_listener_actor&) {},
    [=](const push_reply_message&) {},
    [=](heartbeat_atom) {
      ++self->state.book->rounds;
      return caf::ok_atom::value;
    },
  };
}

// -- client instance ----------------------------------------------------------

/// The books of a stub client instance, for a fixture to inherit.
struct instance_books {
  std::shared_ptr<route_book> routes = std::make_shared<route_book>();
  std::shared_ptr<directory_book> dir = std::make_shared<directory_book>();
  std::shared_ptr<heartbeat_book> hb = std::make_shared<heartbeat_book>();

  /// Fills `inst` with the stub directory, route cache and heartbeat
  /// sender over these books and the real latency-fault service, each
  /// made by `spawn(fn, args...)` (a fixture's spawn, or one that also
  /// keeps the handle for shutdown).
  template <class Spawn>
  void spawn_instance(client_instance& inst, Spawn spawn) const {
    inst.directory = spawn(directory_stub, dir);
    inst.routes = spawn(route_stub, routes);
    inst.heartbeats = spawn(heartbeat_stub, hb);
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

struct broker_spec {
  std::string name;
  std::string addr;
  int32_t queues = 4;
};

/// A route with writable queues on each broker (master id 0).
inline topic_route_data make_route(const std::vector<broker_spec>& brokers) {
  topic_route_data out;
  for (auto& b : brokers) {
    queue_data qd;
    qd.broker_name = b.name;
    qd.read_queue_nums = b.queues;
    qd.write_queue_nums = b.queues;
    qd.perm = 6;
    out.queue_datas.push_back(qd);
    broker_data bd;
    bd.cluster = "DefaultCluster";
    bd.broker_name = b.name;
    bd.broker_addrs[0] = b.addr;
    out.broker_datas.push_back(bd);
  }
  return out;
}

} // namespace rmq::test::send_stubs
