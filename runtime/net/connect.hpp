// The one way an rmq process connects to a published actor: what
// middleman::remote_actor<T> does, but bounded by a timeout (remote_actor
// waits forever for a peer that accepts TCP and never answers the
// handshake) and over TLS when the process runs with TLS (node_config).
#pragma once

#include <set>
#include <string>
#include <utility>

#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/atom.hpp"
#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/io/middleman_actor.hpp"
#include "caf/node_id.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/sec.hpp"
#include "caf/timespan.hpp"

#include "runtime/net/host_port.hpp"

namespace rmq {

/// Returns the actor that opens connections: the openssl manager's when
/// TLS is loaded, else the middleman's. Requests to it are
/// `(connect_atom, host, port)`, answered with
/// `(node_id, strong_actor_ptr, std::set<std::string>)`.
caf::io::middleman_actor connector(caf::actor_system& sys);

/// Returns the handle for a connect reply, or why it does not fit:
/// `no_actor_published_at_port` for no actor and
/// `unexpected_actor_messaging_interface` for another interface.
template <class Handle>
caf::expected<Handle> handle_from_reply(caf::actor_system& sys,
                                        caf::strong_actor_ptr ptr,
                                        const std::set<std::string>& ifs) {
  if (!ptr)
    return caf::make_error(caf::sec::no_actor_published_at_port);
  if (!sys.assignable<Handle>(ifs))
    return caf::make_error(caf::sec::unexpected_actor_messaging_interface);
  return caf::actor_cast<Handle>(std::move(ptr));
}

/// Connects `self` (a blocking actor) to the `Handle` published at `addr`;
/// waits at most `timeout`.
template <class Handle>
caf::expected<Handle>
connect(caf::scoped_actor& self, const host_port& addr, caf::timespan timeout) {
  caf::expected<Handle> result{caf::make_error(caf::sec::request_timeout)};
  auto& sys = self->system();
  self
    ->request(connector(sys), timeout, caf::connect_atom::value, addr.host,
              addr.port)
    .receive(
      [&](const caf::node_id&, caf::strong_actor_ptr& ptr,
          const std::set<std::string>& ifs) {
        result = handle_from_reply<Handle>(sys, std::move(ptr), ifs);
      },
      [&](caf::error& err) { result = std::move(err); });
  return result;
}

/// Connects from an event-based actor without blocking it: calls
/// `f(caf::expected<Handle>)` with the handle or the error (the timeout
/// included) as a response handler of `self`.
template <class Handle, class Self, class F>
void connect_async(Self* self, const host_port& addr, caf::timespan timeout,
                   F f) {
  self
    ->request(connector(self->system()), timeout, caf::connect_atom::value,
              addr.host, addr.port)
    .then(
      [self, f](caf::node_id&, caf::strong_actor_ptr& ptr,
                std::set<std::string>& ifs) mutable {
        f(handle_from_reply<Handle>(self->system(), std::move(ptr), ifs));
      },
      [f](caf::error& err) mutable {
        f(caf::expected<Handle>{std::move(err)});
      });
}

} // namespace rmq
