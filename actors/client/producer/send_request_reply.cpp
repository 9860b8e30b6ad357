// Request-reply (RocketMQ RequestResponseFuture): a request is a send
// whose reply the request holder waits for;
// actors/client/producer/send_loop_parts.hpp.
#include "actors/client/producer/send_loop_parts.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <sstream>
#include <utility>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/client_message_codec.hpp"
#include "runtime/client/publish_queues.hpp"
#include "runtime/client/queue_selector.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/common/dump.hpp"

namespace rmq::send_loop_detail {

// -- request-reply ------------------------------------------------------------

/// RocketMQ DefaultMQProducerImpl#request: the message gets CORRELATION_ID,
/// REPLY_TO_CLIENT and TTL, the client instance's request holder waits
/// for its reply, and a failed send ends the wait with the send's error.
caf::result<received_message> request_one(loop_ptr self, client_message msg,
                                          caf::timespan timeout) {
  auto& st = self->state;
  if (st.stopping)
    return not_running();
  if (timeout <= caf::timespan{0})
    return make_error(errc::invalid_parameter,
                      "a request needs a timeout above zero");
  if (!st.inst.requests)
    return make_error(errc::service_not_available,
                      "the client instance has no request holder");
  // A UNIQ_KEY-style id: unique across processes, as RocketMQ's UUID.
  auto id = st.keys->next(wall_ms(st));
  msg.properties[property_correlation_id] = id;
  msg.properties[property_reply_to_client] = st.inst.client_id;
  msg.properties[property_message_ttl] = std::to_string(to_ms(timeout));
  if (auto err = check_client_message(msg, st.codec))
    return err;
  ++st.requests;
  auto rp = self->make_response_promise<received_message>();
  // The wait first: the holder has it before any reply can reach it.
  self
    ->request(st.inst.requests, caf::infinite, request_atom::value, id, timeout)
    .then(
      [rp](received_message& reply) mutable { rp.deliver(std::move(reply)); },
      [rp](caf::error& err) mutable {
        log_request_failure(component, "request", err);
        rp.deliver(std::move(err));
      });
  auto fail_wait = [self, id](const caf::error& err) {
    self->send(self->state.inst.requests, caf::delete_atom::value, id, err);
  };
  auto send = [self, msg, fail_wait] {
    auto me = caf::actor_cast<producer_actor>(self);
    // The send loop answers within send_timeout.
    self->request(me, caf::infinite, send_atom::value, msg)
      .then([](const client_send_result&) {},
            [fail_wait](const caf::error& err) { fail_wait(err); });
  };
  if (st.topics.count(msg.topic) > 0) {
    send();
    return rp;
  }
  // RocketMQ prepareSendRequest: the first request to a topic fetches its
  // route and heartbeats to every broker at once, so that the broker the
  // reply comes through knows this client.
  auto deadline = self->clock().now() + st.cfg.send_timeout;
  with_route(self, msg.topic, deadline,
             [self, send, fail_wait](const caf::error& err) {
               if (err) {
                 fail_wait(err);
                 return;
               }
               self
                 ->request(self->state.inst.heartbeats,
                           self->state.cfg.send_timeout, heartbeat_atom::value)
                 .then([send](caf::ok_atom) { send(); },
                       [send](const caf::error& err) {
                         log_request_failure(component,
                                             "heartbeat before a request", err);
                         send();
                       });
             });
  return rp;
}

} // namespace rmq::send_loop_detail
