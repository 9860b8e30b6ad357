// The cluster a bench starts: a broker (and for the client-side benches,
// consume and e2e, a NameServer) as child processes, and this process's
// actor system connected to the broker; or a running cluster the bench
// joins (join_cluster).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"

#include "actors/client/producer/producer.hpp"

#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/broker_child.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/process/option_parser.hpp"

namespace rmq::bench {

struct bench_cluster {
  /// Null for a broker without NameServer (start_bench_broker).
  std::unique_ptr<namesrv_child> ns;
  std::unique_ptr<broker_child> node;
  /// Outlives `sys`, which keeps a reference to it.
  node_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  /// The broker's front and its echo actor (the same-run baseline).
  broker_connection conn;
  /// The NameServer list and the broker's address; the broker's pid when
  /// the bench started it (its CPU is measured), else empty.
  std::string namesrv_addr;
  std::string broker_addr;
  std::string broker_pid;
};

/// Starts the NameServer and the broker (its store under `store_dir`),
/// the actor system, and `topic` with `queues` queues; null on failure
/// (printed).
std::unique_ptr<bench_cluster> start_cluster(const std::string& store_dir,
                                             const std::string& topic,
                                             int32_t queues);

/// Joins a running cluster: the NameServers `namesrv`, and the broker at
/// `broker` for the baseline (its echo actor) and `topic` (created there
/// with `queues` queues, or updated); null on failure (printed).
std::unique_ptr<bench_cluster>
join_cluster(const std::string& namesrv, const std::string& broker,
             const std::string& topic, int32_t queues);

/// The client-side benches' choice: start a cluster, or join the one
/// given by `--namesrv` and `--broker` (both or neither).
struct cluster_flags {
  std::string namesrv;
  std::string broker;
  std::string store_dir = "/tmp";

  /// Adds --namesrv, --broker and --store-dir.
  void add_to(option_parser& flags);

  /// Starts or joins; a joined cluster gets `topic` with a suffix of this
  /// process's id, so that no earlier run's messages are in it. Null on
  /// failure (printed).
  std::unique_ptr<bench_cluster> start(std::string& topic, int32_t queues);
};

/// A producer of group `group` on the cluster's NameServers, with a 30 s
/// send timeout (room for a slow start: under valgrind the first connect
/// takes long); the error is printed.
caf::expected<producer> cluster_producer(const bench_cluster& cl,
                                         const std::string& group);

/// Topics to create on a started broker: (name, read and write queues).
using bench_topics = std::vector<std::pair<std::string, int32_t>>;

/// Starts a broker registered nowhere (its store under `store_dir`, flush
/// mode `flush`), the actor system connected to it, and `topics`; null on
/// failure (printed).
std::unique_ptr<bench_cluster>
start_bench_broker(const std::string& flush, const std::string& store_dir,
                   const bench_topics& topics = {});

} // namespace rmq::bench
