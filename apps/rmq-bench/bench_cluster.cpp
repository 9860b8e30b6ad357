#include "apps/rmq-bench/bench_cluster.hpp"

#include <iostream>

#include "caf/scoped_actor.hpp"

namespace rmq::bench {

std::unique_ptr<bench_cluster> start_cluster(const std::string& store_dir,
                                             const std::string& topic,
                                             int32_t queues) {
  auto c = std::make_unique<bench_cluster>();
  c->ns = start_namesrv();
  if (!c->ns)
    return nullptr;
  c->node = start_broker("bench-broker", "ASYNC_FLUSH", store_dir,
                         c->ns->address);
  if (!c->node)
    return nullptr;
  if (auto why = c->cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return nullptr;
  }
  c->sys = std::make_unique<caf::actor_system>(c->cfg);
  auto conn = connect_broker(*c->sys, c->node->address);
  if (!conn)
    return nullptr;
  c->conn = *conn;
  caf::scoped_actor self{*c->sys};
  if (!create_topic(self, c->conn.broker, topic, queues))
    return nullptr;
  return c;
}

} // namespace rmq::bench
