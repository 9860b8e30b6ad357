// Where a network_actor runs: on the network thread for a message read
// off a connection, on the scheduler for one from a scheduled actor,
// handed on with delegate_to_scheduler, or after run_on_network(false). Two actor systems in this process,
// one publishing on 127.0.0.1, the other connecting.
#include "actors/common/network_actor.hpp"

#include <thread>
#include <utility>

#include <doctest/doctest.h>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "runtime/process/node_config.hpp"

using namespace rmq;

namespace {

using where_atom = caf::atom_constant<caf::atom("where")>;
using via_sched_atom = caf::atom_constant<caf::atom("viasched")>;
using off_atom = caf::atom_constant<caf::atom("off")>;

// Answers whether it runs on the network thread.
using probe_actor
  = caf::typed_actor<caf::replies_to<where_atom>::with<bool>,
                     caf::replies_to<via_sched_atom>::with<bool>,
                     caf::replies_to<off_atom>::with<bool>>;

struct probe_state {
  std::thread::id network_thread;
  probe_actor next; // where a request is handed on, if set
  static inline const char* name = "probe";
};

probe_actor::behavior_type probe(network_pointer<probe_actor, probe_state> self,
                                 std::thread::id network_thread,
                                 probe_actor next) {
  self->state.network_thread = network_thread;
  self->state.next = next;
  return {
    [self](where_atom) -> caf::result<bool> {
      if (self->state.next)
        return self->delegate(self->state.next, where_atom::value);
      return std::this_thread::get_id() == self->state.network_thread;
    },
    [self](via_sched_atom) -> caf::result<bool> {
      return delegate_to_scheduler(self, self->state.next, where_atom::value);
    },
    [self](off_atom) {
      self->run_on_network(false);
      return std::this_thread::get_id() == self->state.network_thread;
    },
  };
}

struct two_systems {
  node_config server_cfg;
  node_config client_cfg;
  std::unique_ptr<caf::actor_system> server;
  std::unique_ptr<caf::actor_system> client;

  two_systems() {
    REQUIRE(server_cfg.load_network().empty());
    REQUIRE(client_cfg.load_network().empty());
    server = std::make_unique<caf::actor_system>(server_cfg);
    client = std::make_unique<caf::actor_system>(client_cfg);
  }

  std::thread::id network_thread() {
    return server->middleman().backend().thread_id();
  }

  // A probe on the server, handing on to `next` if set. Lazily
  // initialized: a probe spawned eagerly is scheduled once at spawn, and
  // a request that reaches it before that run is over (a loaded machine)
  // is served by the scheduler thread already running it.
  probe_actor spawn_probe(probe_actor next = {}) {
    return server->spawn<caf::lazy_init>(probe, network_thread(), next);
  }

  // A probe on the server (handing on to `next`, if set) and the client's
  // handle of it.
  std::pair<probe_actor, probe_actor> served_probe(probe_actor next = {}) {
    auto x = spawn_probe(next);
    return {x, remote(x)};
  }

  // The client's handle of `x`, published by the server.
  probe_actor remote(const probe_actor& x) {
    auto port = server->middleman().publish(x, 0, "127.0.0.1");
    REQUIRE(port);
    auto hdl = client->middleman().remote_actor<probe_actor>("127.0.0.1",
                                                             *port);
    REQUIRE(hdl);
    return *hdl;
  }

  // Asks `x` from `sys`.
  static bool ask(caf::actor_system& sys, const probe_actor& x,
                  caf::atom_value what) {
    caf::scoped_actor self{sys};
    bool result = false;
    bool answered = false;
    auto on_answer = [&](bool on_network) {
      result = on_network;
      answered = true;
    };
    auto on_error = [&](caf::error& err) {
      FAIL("no answer: " << sys.render(err));
    };
    auto timeout = std::chrono::seconds(10);
    if (what == where_atom::value)
      self->request(x, timeout, where_atom::value).receive(on_answer, on_error);
    else if (what == off_atom::value)
      self->request(x, timeout, off_atom::value).receive(on_answer, on_error);
    else
      self->request(x, timeout, via_sched_atom::value)
        .receive(on_answer, on_error);
    CHECK(answered);
    return result;
  }

  ~two_systems() {
    client.reset();
    server.reset();
  }
};

} // namespace

TEST_SUITE("broker.network_actor") {
  TEST_CASE("a request read off a connection runs on the network thread") {
    two_systems t;
    auto [x, hdl] = t.served_probe();
    CHECK(two_systems::ask(*t.client, hdl, where_atom::value));
    // The same actor asked from the server's own scheduled actor: the
    // scheduler runs it.
    CHECK_FALSE(two_systems::ask(*t.server, x, where_atom::value));
    caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
  }

  TEST_CASE("an actor that chose the scheduler runs there from then on") {
    two_systems t;
    auto [x, hdl] = t.served_probe();
    CHECK(two_systems::ask(*t.client, hdl, where_atom::value));
    // Still on the network thread while choosing.
    CHECK(two_systems::ask(*t.client, hdl, off_atom::value));
    CHECK_FALSE(two_systems::ask(*t.client, hdl, where_atom::value));
    CHECK_FALSE(two_systems::ask(*t.client, hdl, where_atom::value));
    caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
  }

  TEST_CASE("a plain delegate stays on the network thread, "
            "delegate_to_scheduler leaves it") {
    two_systems t;
    auto back = t.spawn_probe();
    auto [front, hdl] = t.served_probe(back);
    CHECK(two_systems::ask(*t.client, hdl, where_atom::value));
    CHECK_FALSE(two_systems::ask(*t.client, hdl, via_sched_atom::value));
    // And the front still runs where it did: the next plain delegate is
    // on the network thread again.
    CHECK(two_systems::ask(*t.client, hdl, where_atom::value));
    caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(back, caf::exit_reason::user_shutdown);
  }
}
