// The one way a front actor passes a request on to an actor that a remote
// client must not see: it asks that actor and answers with its reply.
// Unlike delegate, the client never gets the inner handle, so CAF's
// network layer keeps no reference to it (a detached actor's thread would
// then outlive its node) and a peer cannot send it an exit message. Costs
// one more local hop than delegate, so the data path delegates to the
// attached processors instead.
#pragma once

#include <chrono>
#include <utility>

#include "caf/error.hpp"
#include "caf/typed_response_promise.hpp"

#include "runtime/common/request_failure.hpp"

namespace rmq {

template <class R, class Self, class Handle, class... Ts>
caf::typed_response_promise<R>
relay(Self* self, const Handle& hdl, std::chrono::milliseconds timeout,
      const char* component, const char* what, Ts&&... xs) {
  auto rp = self->template make_response_promise<R>();
  self->request(hdl, timeout, std::forward<Ts>(xs)...)
    .then([rp](R& x) mutable { rp.deliver(std::move(x)); },
          [rp, component, what](caf::error& err) mutable {
            log_request_failure(component, what, err);
            rp.deliver(std::move(err));
          });
  return rp;
}

} // namespace rmq
