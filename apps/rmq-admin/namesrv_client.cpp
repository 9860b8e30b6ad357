#include "apps/rmq-admin/namesrv_client.hpp"

#include "messages/common/errors.hpp"
#include "runtime/net/connect.hpp"

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

caf::error namesrv_client::connect_any(const std::vector<namesrv_addr>& addrs) {
  std::string failures;
  for (auto& addr : addrs) {
    auto err = connect(addr);
    if (!err)
      return err;
    failures += (failures.empty() ? "" : "; ")
                + ("cannot connect to namesrv " + addr.to_string() + ": ")
                + describe(err);
  }
  return make_error(errc::service_not_available, std::move(failures));
}

} // namespace rmq::admin
