// Finding the node of a queue's broker group a consumer talks to (pulls,
// offset commits, locks, offset lookups): the consumer's master cache
// first, else the topic's route from the instance's route cache and a
// connection from its peer directory, the master or, when it is gone or
// suggested one, a slave (RocketMQ
// MQClientInstance#findBrokerAddressInSubscribe; docs/replication.md,
// "Reading from a slave"). Both
// consumers use it; the producer picks brokers per send instead
// (actors/client/producer/send_loop.*).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

/// Calls `found` with the node of `mq.broker_name` to read at and its
/// address: node `prefer` (the master unless a pull answer suggested a
/// slave: suggestWhichBrokerId), else — it is not in the route or cannot
/// be connected — the others in id order, the master first (RocketMQ
/// findBrokerAddressInSubscribe with that id, not only that broker);
/// `failed` gets service_not_available (no node in the route) or the
/// last connect's error. `timeout` bounds the route request; each connect
/// gets the instance's connect timeout. Only the preferred node is put
/// into `cache`, so a returning master is read again at the next lookup.
/// `only_master` never takes a slave (queue locks: RocketMQ locks on the
/// master only, so that two consumers never hold one queue on two nodes).
template <class Self>
void with_master_at(Self* self, const client_instance& inst,
                    master_cache& cache, const message_queue& mq,
                    caf::timespan timeout, master_found found,
                    master_failed failed, bool only_master = false,
                    int64_t prefer = master_id) {
  if (only_master)
    prefer = master_id;
  if (auto known = cache.find(mq.broker_name, prefer)) {
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
        // The group's nodes: the preferred one, then by id, the master
        // (id 0) first.
        auto nodes
          = std::make_shared<std::vector<std::pair<int64_t, std::string>>>();
        for (auto& b : route.broker_datas)
          if (b.broker_name == name)
            for (auto& [id, addr] : b.broker_addrs)
              if (!addr.empty() && (id == master_id || !only_master))
                nodes->emplace_back(id, addr);
        std::stable_partition(nodes->begin(), nodes->end(),
                              [&](auto& n) { return n.first == prefer; });
        if (nodes->empty()) {
          failed(make_error(errc::service_not_available,
                            std::string{only_master ? "no master"
                                                    : "no master or slave"}
                              + " known for broker " + name));
          return;
        }
        auto next = std::make_shared<std::function<void(size_t)>>();
        *next = [=, &cache](size_t i) {
          auto [id, addr] = (*nodes)[i];
          self
            ->request(directory, connect_timeout, caf::connect_atom::value,
                      addr)
            .then(
              [=, &cache, id = id, addr = addr](client_broker_actor& hdl) {
                if (id == prefer)
                  cache.put(name, addr, hdl, id);
                found(hdl, addr);
                *next = nullptr; // breaks the cycle
              },
              [=](const caf::error& err) {
                if (i + 1 < nodes->size()) {
                  (*next)(i + 1);
                } else {
                  failed(err);
                  *next = nullptr;
                }
              });
        };
        (*next)(0);
      },
      failed);
}

} // namespace rmq
