#include "apps/rmq-demo/probe.hpp"

#include <set>

#include "caf/actor_cast.hpp"
#include "caf/io/middleman.hpp"
#include "caf/node_id.hpp"

#include "messages/errors.hpp"

namespace rmq::demo {

namespace {

constexpr auto request_timeout = std::chrono::seconds{2};

} // namespace

probe::probe(caf::actor_system& sys, std::string host, uint16_t port)
  : sys_(sys),
    host_(std::move(host)),
    port_(port),
    addr_(host_ + ":" + std::to_string(port)),
    self_(sys) {
  // nop
}

caf::error probe::connect(std::chrono::milliseconds timeout) {
  // middleman::remote_actor<T> with a bound: it would wait forever for a
  // peer that accepts TCP but never answers the handshake.
  caf::error result = caf::make_error(caf::sec::request_timeout);
  self_
    ->request(sys_.middleman().actor_handle(), timeout,
              caf::connect_atom::value, host_, port_)
    .receive(
      [&](const caf::node_id&, caf::strong_actor_ptr& ptr,
          const std::set<std::string>& ifs) {
        if (!ptr || !sys_.assignable<namesrv_actor>(ifs)) {
          result
            = caf::make_error(caf::sec::unexpected_actor_messaging_interface);
          return;
        }
        hdl_ = caf::actor_cast<namesrv_actor>(std::move(ptr));
        result = caf::error{};
      },
      [&](caf::error& err) { result = std::move(err); });
  return result;
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
