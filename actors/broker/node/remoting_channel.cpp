#include "actors/broker/node/remoting_channel.hpp"

#include <chrono>
#include <utility>

#include "actors/common/remoting_server.hpp"
#include "runtime/remoting/broker_push_codec.hpp"

namespace rmq {

namespace {

// The client manager answers from memory.
constexpr auto heartbeat_timeout = std::chrono::seconds{10};

} // namespace

caf::behavior remoting_channel(caf::event_based_actor* self, broker_actor front,
                               caf::actor server, uint64_t connection) {
  auto push = [server, connection](remoting::remoting_command cmd) {
    remoting_push(server, connection, std::move(cmd));
  };
  return {
    [=](client_heartbeat& hb) -> caf::result<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      // Sent by this actor, not delegated: the client manager keeps the
      // sender as the client's channel.
      self->request(front, heartbeat_timeout, std::move(hb))
        .then([rp](caf::ok_atom ok) mutable { rp.deliver(ok); },
              [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [=](const consumer_ids_changed& x) {
      push(remoting::notify_consumer_ids_changed(x));
    },
    [=](const check_transaction_state& x) {
      push(remoting::check_transaction_request(x));
    },
    [=](const push_reply_message& x) { push(remoting::push_reply_request(x)); },
  };
}

} // namespace rmq
