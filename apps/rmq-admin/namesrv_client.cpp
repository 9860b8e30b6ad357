#include "apps/rmq-admin/namesrv_client.hpp"

#include "runtime/connect.hpp"

namespace rmq::admin {

namesrv_client::namesrv_client(caf::actor_system& sys,
                               std::chrono::milliseconds timeout)
  : timeout_(timeout), self_(sys) {
  // nop
}

caf::error namesrv_client::connect(const namesrv_addr& addr) {
  auto hdl = rmq::connect<namesrv_actor>(self_, addr, timeout_);
  if (!hdl)
    return std::move(hdl.error());
  hdl_ = std::move(*hdl);
  return caf::error{};
}

} // namespace rmq::admin
