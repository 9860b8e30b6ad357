// One connection to a NameServer plus a blocking request helper. Every step
// has a finite timeout (the connect through runtime/net/connect.hpp).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/error.hpp"
#include "caf/expected.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/sec.hpp"

#include "apps/rmq-admin/admin_args.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/net/blocking_ask.hpp"

namespace rmq::admin {

class namesrv_client {
public:
  namesrv_client(caf::actor_system& sys, std::chrono::milliseconds timeout);

  /// Connects to the NameServer at `addr` and checks that it publishes a
  /// `namesrv_actor`.
  caf::error connect(const namesrv_addr& addr);

  /// Connects to the first of `addrs` that answers, in order (mqadmin
  /// tries the next NameServer too); the error says "cannot connect to
  /// namesrv ADDR: why" for each one tried.
  caf::error connect_any(const std::vector<namesrv_addr>& addrs);

  /// Sends `req` and waits for the answer of type `Result` or an error
  /// (including caf::sec::request_timeout).
  template <class Result, class Request>
  caf::expected<Result> ask(Request req) {
    return blocking_ask<Result>(self_, hdl_, timeout_, std::move(req));
  }

  const namesrv_actor& handle() const {
    return hdl_;
  }

private:
  std::chrono::milliseconds timeout_;
  caf::scoped_actor self_;
  namesrv_actor hdl_;
};

} // namespace rmq::admin
