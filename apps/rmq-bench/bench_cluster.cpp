#include "apps/rmq-bench/bench_cluster.hpp"

#include <iostream>

#include <unistd.h>

#include "caf/scoped_actor.hpp"

#include "messages/common/errors.hpp"

namespace rmq::bench {

namespace {

// The actor system of `c` and its connection to `c.broker_addr`; false
// on failure (printed).
bool connect_to_broker(bench_cluster& c) {
  if (auto why = c.cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return false;
  }
  c.sys = std::make_unique<caf::actor_system>(c.cfg);
  auto conn = connect_broker(*c.sys, c.broker_addr);
  if (!conn)
    return false;
  c.conn = *conn;
  return true;
}

// The broker, the actor system and the connection of `c`; false on
// failure (printed).
bool start_broker_of(bench_cluster& c, const std::string& flush,
                     const std::string& store_dir) {
  c.node = start_broker("bench-broker", flush, store_dir,
                        c.ns ? c.ns->address : std::string{});
  if (!c.node)
    return false;
  c.broker_addr = c.node->address;
  c.broker_pid = std::to_string(c.node->proc->pid());
  return connect_to_broker(c);
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
  c->namesrv_addr = c->ns->address;
  if (!start_broker_of(*c, "ASYNC_FLUSH", store_dir)
      || !create_topics(*c, {{topic, queues}}))
    return nullptr;
  return c;
}

std::unique_ptr<bench_cluster>
join_cluster(const std::string& namesrv, const std::string& broker,
             const std::string& topic, int32_t queues) {
  auto c = std::make_unique<bench_cluster>();
  c->namesrv_addr = namesrv;
  c->broker_addr = broker;
  if (!connect_to_broker(*c) || !create_topics(*c, {{topic, queues}}))
    return nullptr;
  return c;
}

void cluster_flags::add_to(option_parser& flags) {
  flags.add("namesrv", namesrv,
            "a running cluster's NameServers (default: start one)");
  flags.add("broker", broker,
            "with --namesrv: the broker for the baseline and the topic");
  flags.add("store-dir", store_dir,
            "where the started broker's temporary store dir is made");
}

std::unique_ptr<bench_cluster> cluster_flags::start(std::string& topic,
                                                    int32_t queues) {
  if (namesrv.empty() != broker.empty()) {
    std::cerr << "--namesrv and --broker go together\n";
    return nullptr;
  }
  if (namesrv.empty())
    return start_cluster(store_dir, topic, queues);
  topic += "_" + std::to_string(::getpid());
  return join_cluster(namesrv, broker, topic, queues);
}

caf::expected<producer> cluster_producer(const bench_cluster& cl,
                                         const std::string& group) {
  producer_config pcfg;
  pcfg.group = group;
  pcfg.client.namesrv = cl.namesrv_addr;
  pcfg.send_timeout = std::chrono::seconds{30};
  auto p = spawn_producer(*cl.sys, pcfg);
  if (!p)
    std::cerr << "cannot start the producer: " << describe(p.error()) << '\n';
  return p;
}

} // namespace rmq::bench
