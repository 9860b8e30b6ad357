#include "apps/rmq-bench/bench_cluster.hpp"

#include <iostream>

#include "caf/scoped_actor.hpp"

namespace rmq::bench {

namespace {

// The broker, the actor system and the connection of `c`; false on
// failure (printed).
bool start_broker_of(bench_cluster& c, const std::string& flush,
                     const std::string& store_dir) {
  c.node = start_broker("bench-broker", flush, store_dir,
                        c.ns ? c.ns->address : std::string{});
  if (!c.node)
    return false;
  if (auto why = c.cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return false;
  }
  c.sys = std::make_unique<caf::actor_system>(c.cfg);
  auto conn = connect_broker(*c.sys, c.node->address);
  if (!conn)
    return false;
  c.conn = *conn;
  return true;
}

// Creates `topics` on the broker of `c`; false on failure (printed).
bool create_topics(bench_cluster& c, const bench_topics& topics) {
  caf::scoped_actor self{*c.sys};
  for (auto& [name, queues] : topics)
    if (!create_topic(self, c.conn.broker, name, queues))
      return false;
  return true;
}

} // namespace

std::unique_ptr<bench_cluster> start_bench_broker(const std::string& flush,
                                                  const std::string& store_dir,
                                                  const bench_topics& topics) {
  auto c = std::make_unique<bench_cluster>();
  if (!start_broker_of(*c, flush, store_dir) || !create_topics(*c, topics))
    return nullptr;
  return c;
}

std::unique_ptr<bench_cluster> start_cluster(const std::string& store_dir,
                                             const std::string& topic,
                                             int32_t queues) {
  auto c = std::make_unique<bench_cluster>();
  c->ns = start_namesrv();
  if (!c->ns)
    return nullptr;
  if (!start_broker_of(*c, "ASYNC_FLUSH", store_dir)
      || !create_topics(*c, {{topic, queues}}))
    return nullptr;
  return c;
}

} // namespace rmq::bench
