#include "actors/broker/node/remoting_channel.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <utility>

#include "actors/common/remoting_server.hpp"
#include "messages/common/errors.hpp"
#include "runtime/remoting/broker_push_codec.hpp"
#include "runtime/remoting/client_manage_codec.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq {

namespace {

// The client manager answers from memory.
constexpr auto heartbeat_timeout = std::chrono::seconds{10};

// What the broker asks a client for an admin: Broker2Client#callClient's
// 10 s. The server keeps the deadline and answers an error past it.
constexpr auto call_timeout = std::chrono::seconds{10};

// The client's answer to GET_CONSUMER_RUNNING_INFO: its body, or its
// refusal in its own words.
caf::expected<consumer_running_info> running_info(const std::string& frame) {
  remoting::frame_reader r;
  r.feed(frame);
  auto res = r.next();
  if (!res)
    return make_error(errc::system_error, "the client's answer did not parse");
  if (res->code != remoting::response_code::success)
    return make_error(errc::system_error, res->remark.value_or(""));
  return consumer_running_info{std::move(res->body)};
}

} // namespace

caf::behavior remoting_channel(caf::event_based_actor* self, broker_actor front,
                               caf::actor server, uint64_t connection) {
  auto push = [server, connection](remoting::remoting_command cmd) {
    remoting_push(server, connection, std::move(cmd));
  };
  // Asks in flight, by number: the server stops this channel when the
  // connection closes, and whoever asked hears it then, not at its
  // timeout.
  using promise = caf::typed_response_promise<consumer_running_info>;
  auto asks = std::make_shared<std::map<uint64_t, promise>>();
  auto next_ask = std::make_shared<uint64_t>(0);
  self->set_exit_handler([=](caf::exit_msg& msg) {
    for (auto& [id, rp] : *asks)
      rp.deliver(caf::make_error(caf::sec::request_receiver_down,
                                 "the client's connection closed"));
    asks->clear();
    self->quit(msg.reason);
  });
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
    [=](const get_consumer_running_info_request& x)
      -> caf::result<consumer_running_info> {
      auto rp = self->make_response_promise<consumer_running_info>();
      auto id = (*next_ask)++;
      asks->emplace(id, rp);
      auto done = [asks, id](caf::expected<consumer_running_info> x) {
        auto i = asks->find(id);
        if (i == asks->end())
          return;
        if (x)
          i->second.deliver(std::move(*x));
        else
          i->second.deliver(std::move(x.error()));
        asks->erase(i);
      };
      // No CAF timeout: the server answers every ask, by its deadline.
      self
        ->request(server, caf::infinite,
                  remoting_ask(connection,
                               remoting::consumer_running_info_request(x),
                               call_timeout))
        .then([done](const std::string& frame) { done(running_info(frame)); },
              [done](caf::error& err) { done(std::move(err)); });
      return rp;
    },
  };
}

} // namespace rmq
