// The base of the client tests against a whole in-process NameServer and
// broker node (tests/actors/broker/broker_node_fixture.hpp): the real peer
// directory over a connector that hands out the fixture's NameServer and
// broker by address, as the middleman's connect would, and TopicA with 4
// queues.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/node_id.hpp"
#include "caf/sec.hpp"

#include "actors/client/instance/peer_directory.hpp"
#include "messages/broker/broker.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "tests/actors/broker/broker_node_fixture.hpp"

namespace rmq::test {

/// The address the fixture's broker registers with the NameServer.
inline const std::string node_broker_addr = "127.0.0.1:10921";

/// Connects `namesrv_addr` to `ns` and `node_broker_addr` to `broker`;
/// refuses every other address.
inline caf::behavior node_connector(caf::event_based_actor* self,
                                    namesrv_actor ns, broker_actor broker) {
  return {
    [=](caf::connect_atom, const std::string& host, uint16_t port) {
      auto rp = self->make_response_promise();
      auto addr = host + ":" + std::to_string(port);
      if (addr == namesrv_addr)
        rp.deliver(caf::node_id{}, caf::actor_cast<caf::strong_actor_ptr>(ns),
                   self->system().message_types(ns));
      else if (addr == node_broker_addr)
        rp.deliver(caf::node_id{},
                   caf::actor_cast<caf::strong_actor_ptr>(broker),
                   self->system().message_types(broker));
      else
        rp.deliver(caf::make_error(caf::sec::cannot_connect_to_node));
      return rp;
    },
  };
}

struct node_client_fixture : broker_node_fixture {
  /// The peer directory for the client config (`client_config::directory`).
  peer_directory_actor directory;

  node_client_fixture() {
    peer_directory_config dc;
    dc.connector = spawn(node_connector, namesrv, node.frontend);
    directory = spawn(peer_directory, dc);
    create_topic("TopicA");
    sched.run();
  }

  /// The broker's client manager's dump.
  nlohmann::json clients() {
    return nlohmann::json::parse(
      ask<std::string>(node.clients, dump_atom::value));
  }
};

} // namespace rmq::test
