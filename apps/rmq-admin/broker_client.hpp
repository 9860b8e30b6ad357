// One connection to a broker's front actor (messages/broker/broker.hpp) plus a
// blocking request helper, as namesrv_client is for a NameServer. Every step
// has a finite timeout (the connect through runtime/net/connect.hpp), so a
// broker that does not answer ends the command with an error.
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include "caf/actor_system.hpp"
#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/sec.hpp"

#include "messages/broker/broker.hpp"
#include "runtime/net/blocking_ask.hpp"
#include "runtime/net/host_port.hpp"

namespace rmq::admin {

class broker_client {
public:
  broker_client(caf::actor_system& sys, std::chrono::milliseconds timeout);

  /// Connects to the broker at `addr` ("host:port") and checks that it
  /// publishes a `broker_actor`; invalid_parameter for a malformed address.
  caf::error connect(const std::string& addr);

  /// Sends `req` and waits for the answer of type `Result` or an error
  /// (including caf::sec::request_timeout).
  template <class Result, class Request>
  caf::expected<Result> ask(Request req) {
    return blocking_ask<Result>(self_, hdl_, timeout_, std::move(req));
  }

  /// The address given to `connect`.
  const std::string& addr() const {
    return addr_;
  }

private:
  std::chrono::milliseconds timeout_;
  caf::scoped_actor self_;
  broker_actor hdl_;
  std::string addr_;
};

} // namespace rmq::admin
