// The typed interface of the broker's NameServer registrar (RocketMQ
// BrokerController.registerBrokerAll / BrokerOuterAPI): the actor that keeps
// one broker registered with every NameServer. Implemented in
// actors/broker/node/namesrv_registrar.*.
#pragma once

#include "caf/atom.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/topics.hpp"
#include "messages/common/common.hpp"

namespace rmq {

/// The registrar's timer: register with every NameServer now.
using register_round_atom = caf::atom_constant<caf::atom("rg_round")>;

/// The registrar's timer: heart-beat every NameServer now.
using heartbeat_round_atom = caf::atom_constant<caf::atom("rg_beat")>;

/// Interface of the NameServer registrar.
using namesrv_registrar_actor = dumpable_actor::extend<
  // A new topic set and data version (what the topic config table sends its
  // watchers): registers it with every NameServer at once.
  caf::reacts_to<caf::put_atom, topic_config_set>,
  // Graceful stop: unregisters from every connected NameServer (each
  // request bounded by the unregister timeout), answers ok, then quits.
  // Await the answer before stopping the node.
  caf::replies_to<caf::delete_atom>::with<caf::ok_atom>,
  // The broker's port is published: a registrar started with
  // `wait_for_open` begins registering (a no-op otherwise).
  caf::reacts_to<caf::open_atom>, caf::reacts_to<register_round_atom>,
  caf::reacts_to<heartbeat_round_atom>>;

} // namespace rmq
