#include "apps/rmq-demo/probe.hpp"

#include "messages/common/errors.hpp"
#include "runtime/net/blocking_ask.hpp"
#include "runtime/net/connect.hpp"

namespace rmq::demo {

namespace {

constexpr auto request_timeout = std::chrono::seconds{2};

} // namespace

probe::probe(caf::actor_system& sys, host_port addr)
  : where_(std::move(addr)), addr_(where_.to_string()), self_(sys) {
  // nop
}

caf::error probe::connect(std::chrono::milliseconds timeout) {
  auto hdl = rmq::connect<namesrv_actor>(self_, where_, timeout);
  if (!hdl)
    return std::move(hdl.error());
  hdl_ = std::move(*hdl);
  return caf::error{};
}

std::optional<bool> probe::knows_broker(const std::string& broker_name) {
  auto info = blocking_ask<cluster_info>(self_, hdl_, request_timeout,
                                         get_broker_cluster_info_request{});
  if (!info)
    return std::nullopt;
  return info->broker_addr_table.count(broker_name) > 0;
}

std::optional<int32_t> probe::perm_of(const std::string& topic,
                                      const std::string& broker_name) {
  auto route = blocking_ask<topic_route_data>(self_, hdl_, request_timeout,
                                              get_route_info_request{topic});
  if (!route)
    return route.error() == errc::topic_not_exist ? std::optional<int32_t>{-1}
                                                  : std::nullopt;
  int32_t result = -1;
  for (auto& qd : route->queue_datas)
    if (qd.broker_name == broker_name)
      result = qd.perm;
  return result;
}

} // namespace rmq::demo
