// A stand-in broker: registers a broker and its topics with every
// NameServer, the way a RocketMQ broker does, without storing messages. The
// work is the broker's own NameServer registrar
// (actors/broker/node/namesrv_registrar.hpp); this program only configures it
// and prints what it reports.
//
// How to run (two NameServers, one broker with two topics):
//   build/rmq-node --role=namesrv &
//   build/rmq-node --role=namesrv --port=9887 --remoting-port=9877 &
//   build/standin-broker --namesrv='127.0.0.1:9886;127.0.0.1:9887'
//     --broker-name=broker-a --topics=TopicA,TopicB --queues=4  (one line)
//   build/rmq-admin -n 127.0.0.1:9886 topicRoute -t TopicA
// Kill it (even with SIGKILL) and both NameServers drop broker-a at once:
// each one monitors the actor that sent the registration, and CAF reports
// it down when the connection closes. SIGINT or SIGTERM unregisters from
// every NameServer first, as a broker's shutdown does.
//
// Cadence as in RocketMQ's BrokerController: register at start and every
// --register-interval-ms (registerNameServerPeriod, 30 s, bounded to
// 10-60 s), heart-beat every --heartbeat-interval-ms. A NameServer that goes
// away is connected again at the next heartbeat. With --tls-dir=DIR it
// talks mutual TLS.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/exit_reason.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "actors/broker/node/namesrv_registrar.hpp"
#include "messages/common/errors.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/process/program_start.hpp"

namespace {

struct config : rmq::node_config {
  std::string namesrv = "127.0.0.1:9886";
  std::string cluster = "DefaultCluster";
  std::string broker_name = "broker-a";
  std::string broker_addr = "127.0.0.1:10921";
  std::string remoting_addr = "127.0.0.1:10911";
  int64_t broker_id = rmq::master_id;
  std::string topics = "TopicTest";
  int32_t queues = 4;
  int32_t perm = rmq::perm::read_write;
  int64_t register_interval_ms = 30'000;
  int64_t heartbeat_interval_ms = 1'000;
  int64_t heartbeat_timeout_ms = 0;
  int64_t timeout_ms = 5'000;

  config() {
    opt_group{custom_options_, "global"}
      .add(namesrv, "namesrv", "NameServers, 'host:port;host:port'")
      .add(cluster, "cluster", "cluster name")
      .add(broker_name, "broker-name", "broker name")
      .add(broker_addr, "broker-addr", "address the broker announces")
      .add(remoting_addr, "remoting-addr",
           "remoting address the broker announces (empty: none)")
      .add(broker_id, "broker-id", "0 = master, > 0 = slave")
      .add(topics, "topics", "comma-separated topics to register")
      .add(queues, "queues", "read and write queues per topic")
      .add(perm, "perm", "topic permission bits (6 = read|write)")
      .add(register_interval_ms, "register-interval-ms",
           "re-registration period (bounded to 10-60 s)")
      .add(heartbeat_interval_ms, "heartbeat-interval-ms",
           "heartbeat period (0: none)")
      .add(heartbeat_timeout_ms, "heartbeat-timeout-ms",
           "silence after which NameServers drop us (0: their default)")
      .add(timeout_ms, "timeout-ms", "bound for connects and requests");
  }
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::istringstream in{text};
  std::string item;
  while (std::getline(in, item, sep))
    if (!item.empty())
      out.push_back(item);
  return out;
}

rmq::namesrv_registrar_options make_options(const config& cfg,
                                            std::vector<rmq::host_port> addrs) {
  rmq::namesrv_registrar_options opts;
  opts.namesrv_addrs = std::move(addrs);
  opts.cluster_name = cfg.cluster;
  opts.broker_addr = cfg.broker_addr;
  opts.remoting_addr = cfg.remoting_addr;
  opts.broker_name = cfg.broker_name;
  opts.broker_id = cfg.broker_id;
  opts.heartbeat_timeout_ms = cfg.heartbeat_timeout_ms;
  // A fixed version: re-registrations then do not overwrite what an
  // operator changed on a NameServer (wipeWritePerm), as in RocketMQ.
  opts.topics.version = rmq::data_version{1, 1, 1};
  for (auto& topic : split(cfg.topics, ',')) {
    rmq::topic_config tc;
    tc.topic_name = topic;
    tc.read_queue_nums = tc.write_queue_nums = cfg.queues;
    tc.perm = cfg.perm;
    opts.topics.topics.push_back(std::move(tc));
  }
  opts.register_interval = std::chrono::milliseconds{cfg.register_interval_ms};
  opts.heartbeat_interval
    = std::chrono::milliseconds{cfg.heartbeat_interval_ms};
  std::chrono::milliseconds timeout{cfg.timeout_ms};
  opts.connect_timeout = timeout;
  opts.register_timeout = timeout;
  opts.heartbeat_request_timeout = timeout;
  opts.unregister_timeout = timeout;
  // Runs on the registrar's thread only: one writer, no interleaving.
  opts.on_event = [](const std::string& line) {
    std::cout << line << std::endl;
  };
  return opts;
}

} // namespace

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  // Before CAF starts its threads (runtime/process/program_start.hpp).
  auto signals = rmq::block_shutdown_signals();
  config cfg;
  if (auto rc = rmq::read_config(cfg, argc, argv, "standin-broker", false);
      rc >= 0)
    return rc;
  auto addrs = rmq::parse_host_port_list(cfg.namesrv);
  if (!addrs) {
    std::cerr << "standin-broker: bad --namesrv '" << cfg.namesrv << "'\n";
    return 2;
  }
  if (cfg.register_interval_ms <= 0 || cfg.timeout_ms <= 0
      || cfg.heartbeat_interval_ms < 0) {
    std::cerr << "standin-broker: intervals and timeouts must be > 0\n";
    return 2;
  }
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "standin-broker: " << why << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  auto registrar = sys.spawn(rmq::namesrv_registrar,
                             make_options(cfg, std::move(*addrs)));
  int sig = 0;
  sigwait(&signals, &sig);
  // Each unregistration is bounded by the timeout; they run in parallel.
  caf::scoped_actor self{sys};
  self
    ->request(registrar, std::chrono::milliseconds{2 * cfg.timeout_ms},
              caf::delete_atom::value)
    .receive([](caf::ok_atom) {},
             [&](const caf::error& err) {
               std::cerr << "standin-broker: stop: " << rmq::describe(err)
                         << std::endl;
             });
  // Stops it if the stop above failed, or the system would wait for it.
  caf::anon_send_exit(registrar, caf::exit_reason::user_shutdown);
  return 0;
}
