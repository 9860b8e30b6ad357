// A stand-in for the middleman's connect on the deterministic coordinator:
// answers `(connect_atom, host, port)` as the middleman does (node, actor,
// interface) with the actors a test published behind addresses, refuses
// every other address, and never answers for the addresses the test hangs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/node_id.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"

namespace rmq::test {

/// The network as the fake connector sees it.
struct fake_net {
  /// An actor behind an address and the interface it was published with.
  struct listener {
    caf::actor hdl;
    std::set<std::string> interface;
  };

  std::map<std::string, listener> up;
  /// Addresses whose connects never finish (their promises are kept).
  std::set<std::string> hung;
  std::vector<caf::response_promise> stalled;
  int connects = 0;

  /// Puts `hdl` behind `addr`, published with its own interface.
  template <class Handle>
  void publish(const std::string& addr, const Handle& hdl) {
    up[addr] = {caf::actor_cast<caf::actor>(hdl),
                hdl.home_system().message_types(hdl)};
  }

  /// Returns the actor behind `addr` as a `Handle`.
  template <class Handle>
  Handle at(const std::string& addr) const {
    return caf::actor_cast<Handle>(up.at(addr).hdl);
  }
};

inline caf::behavior fake_connector(caf::event_based_actor* self,
                                    std::shared_ptr<fake_net> net) {
  return {
    [=](caf::connect_atom, const std::string& host, uint16_t port) {
      ++net->connects;
      auto rp = self->make_response_promise();
      auto addr = host + ":" + std::to_string(port);
      if (net->hung.count(addr) > 0) {
        net->stalled.push_back(rp);
        return rp;
      }
      auto i = net->up.find(addr);
      if (i == net->up.end()) {
        rp.deliver(caf::make_error(caf::sec::cannot_connect_to_node));
        return rp;
      }
      rp.deliver(caf::node_id{},
                 caf::actor_cast<caf::strong_actor_ptr>(i->second.hdl),
                 i->second.interface);
      return rp;
    },
  };
}

} // namespace rmq::test
