#include "apps/rmq-admin/broker_client.hpp"

#include "messages/common/errors.hpp"
#include "runtime/net/connect.hpp"

namespace rmq::admin {

broker_client::broker_client(caf::actor_system& sys,
                             std::chrono::milliseconds timeout)
  : timeout_(timeout), self_(sys) {
  // nop
}

caf::error broker_client::connect(const std::string& addr) {
  addr_ = addr;
  auto hp = parse_host_port(addr);
  if (!hp)
    return make_error(errc::invalid_parameter,
                      "bad broker address '" + addr + "' (want host:port)");
  auto hdl = rmq::connect<broker_actor>(self_, *hp, timeout_);
  if (!hdl)
    return std::move(hdl.error());
  hdl_ = std::move(*hdl);
  return caf::error{};
}

} // namespace rmq::admin
