// Finding the master of a queue's broker, for every request that must go
// to it (pulls, offset commits, locks, offset lookups): the consumer's
// master cache first, else the topic's route from the instance's route
// cache and a connection from its peer directory (RocketMQ
// MQClientInstance#findBrokerAddressInSubscribe with brokerId 0). Both
// consumers use it; the producer picks brokers per send instead
// (actors/client/producer/send_loop.*).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "caf/error.hpp"
#include "caf/timespan.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/instance/master_cache.hpp"
#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"

namespace rmq {

using master_found
  = std::function<void(client_broker_actor, const std::string& addr)>;
using master_failed = std::function<void(const caf::error&)>;

/// Calls `found` with the master of `mq.broker_name` and its address, or
/// `failed` with service_not_available (no master in the route) or the
/// request's error. `timeout` bounds the route request; the connect gets
/// the instance's connect timeout. A master found is put into `cache`.
template <class Self>
void with_master_at(Self* self, const client_instance& inst,
                    master_cache& cache, const message_queue& mq,
                    caf::timespan timeout, master_found found,
                    master_failed failed) {
  if (auto known = cache.find(mq.broker_name)) {
    // Two requests (route cache, peer directory) less per pull.
    auto [addr, hdl] = *known;
    found(hdl, addr);
    return;
  }
  auto directory = inst.directory;
  auto connect_timeout = inst.config.connect_timeout + std::chrono::seconds{1};
  auto name = mq.broker_name;
  self->request(inst.routes, timeout, route_atom::value, mq.topic)
    .then(
      [=, &cache](const topic_route_data& route) {
        std::string addr;
        for (auto& b : route.broker_datas)
          if (b.broker_name == name)
            if (auto i = b.broker_addrs.find(master_id);
                i != b.broker_addrs.end())
              addr = i->second;
        if (addr.empty()) {
          failed(make_error(errc::service_not_available,
                            "no master known for broker " + name));
          return;
        }
        self
          ->request(directory, connect_timeout, caf::connect_atom::value, addr)
          .then(
            [=, &cache](client_broker_actor& hdl) {
              cache.put(name, addr, hdl);
              found(hdl, addr);
            },
            failed);
      },
      failed);
}

} // namespace rmq
