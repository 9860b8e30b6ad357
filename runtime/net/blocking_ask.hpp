// The one way plain (non-actor) code asks an actor and waits: a request
// from a scoped actor, answered with the result or the error (CAF's
// request_timeout when `timeout` passes). Used by rmq-admin's clients, the
// demo's probes and the system tests' client.
#pragma once

#include <utility>

#include "caf/expected.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/sec.hpp"
#include "caf/timespan.hpp"

namespace rmq {

template <class Result, class Handle, class... Request>
caf::expected<Result> blocking_ask(caf::scoped_actor& self, const Handle& hdl,
                                   caf::timespan timeout, Request... req) {
  caf::expected<Result> out{caf::make_error(caf::sec::request_timeout)};
  self->request(hdl, timeout, std::move(req)...)
    .receive([&](Result& x) { out = std::move(x); },
             [&](caf::error& err) { out = std::move(err); });
  return out;
}

} // namespace rmq
