#include "apps/rmq-demo/probe.hpp"

#include "messages/errors.hpp"
#include "runtime/connect.hpp"

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
  std::optional<bool> result;
  self_->request(hdl_, request_timeout, get_broker_cluster_info_request{})
    .receive(
      [&](const cluster_info& info) {
        result = info.broker_addr_table.count(broker_name) > 0;
      },
      [&](const caf::error&) {});
  return result;
}

std::optional<int32_t> probe::perm_of(const std::string& topic,
                                      const std::string& broker_name) {
  std::optional<int32_t> result;
  self_->request(hdl_, request_timeout, get_route_info_request{topic})
    .receive(
      [&](const topic_route_data& route) {
        result = -1;
        for (auto& qd : route.queue_datas)
          if (qd.broker_name == broker_name)
            result = qd.perm;
      },
      [&](const caf::error& err) {
        if (err == errc::topic_not_exist)
          result = -1;
      });
  return result;
}

} // namespace rmq::demo
