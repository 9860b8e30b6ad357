// A stand-in broker: registers a broker and its topics with every
// NameServer, the way a RocketMQ broker does, without storing messages.
//
// How to run (two NameServers, one broker with two topics):
//   build/rmq-node --role=namesrv --port=9876 &
//   build/rmq-node --role=namesrv --port=9877 &
//   build/standin_broker --namesrv='127.0.0.1:9876;127.0.0.1:9877'
//     --broker-name=broker-a --topics=TopicA,TopicB --queues=4  (one line)
//   build/rmq-admin -n 127.0.0.1:9876 topicRoute -t TopicA
// Kill it (even with SIGKILL) and both NameServers drop broker-a at once:
// each one monitors the actor that sent the registration, and CAF reports
// it down when the connection closes.
//
// Cadence as in RocketMQ's BrokerController: register at start and every
// --register-interval-ms (registerNameServerPeriod, 30 s), heart-beat every
// --heartbeat-interval-ms. A NameServer that goes away is reconnected at the
// next registration round. With --tls-dir=DIR it talks mutual TLS.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/atom.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/stateful_actor.hpp"

#include "messages/errors.hpp"
#include "messages/namesrv.hpp"
#include "runtime/connect.hpp"
#include "runtime/host_port.hpp"
#include "runtime/node_config.hpp"

namespace {

// Local timer messages; never sent over the network.
using register_tick_atom = caf::atom_constant<caf::atom("sb_reg")>;
using heartbeat_tick_atom = caf::atom_constant<caf::atom("sb_hb")>;

struct config : rmq::node_config {
  std::string namesrv = "127.0.0.1:9876";
  std::string cluster = "DefaultCluster";
  std::string broker_name = "broker-a";
  std::string broker_addr = "127.0.0.1:10911";
  int64_t broker_id = rmq::master_id;
  std::string topics = "TopicTest";
  int32_t queues = 4;
  int32_t perm = rmq::perm::read_write;
  int64_t register_interval_ms = 30'000;
  int64_t heartbeat_interval_ms = 5'000;
  int64_t heartbeat_timeout_ms = 0;
  int64_t timeout_ms = 5'000;

  config() {
    opt_group{custom_options_, "global"}
      .add(namesrv, "namesrv", "NameServers, 'host:port;host:port'")
      .add(cluster, "cluster", "cluster name")
      .add(broker_name, "broker-name", "broker name")
      .add(broker_addr, "broker-addr", "address the broker announces")
      .add(broker_id, "broker-id", "0 = master, > 0 = slave")
      .add(topics, "topics", "comma-separated topics to register")
      .add(queues, "queues", "read and write queues per topic")
      .add(perm, "perm", "topic permission bits (6 = read|write)")
      .add(register_interval_ms, "register-interval-ms",
           "re-registration period")
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

struct peer {
  rmq::host_port where;
  std::string addr;       // "host:port"
  rmq::namesrv_actor hdl; // null while not connected
  bool connecting = false;
};

struct broker_state {
  std::vector<peer> peers;
  rmq::register_broker_request registration;
  caf::timespan register_interval{0};
  caf::timespan heartbeat_interval{0};
  std::chrono::milliseconds timeout{5000};
  static const char* name;
};

const char* broker_state::name = "standin_broker";

using self_ptr = caf::stateful_actor<broker_state>*;

void say(const std::string& line) {
  std::cout << line << std::endl; // one actor prints; no interleaving
}

void register_with(self_ptr self, size_t i) {
  auto& p = self->state.peers[i];
  self->request(p.hdl, self->state.timeout, self->state.registration)
    .then(
      [=](const rmq::register_broker_result&) {
        say("registered with " + self->state.peers[i].addr);
      },
      [=](const caf::error& err) {
        say("register with " + self->state.peers[i].addr
            + " failed: " + rmq::describe(err));
      });
}

// Asynchronous and bounded, so one dead NameServer does not stall the others.
void connect(self_ptr self, size_t i) {
  auto& p = self->state.peers[i];
  if (p.connecting)
    return;
  p.connecting = true;
  rmq::connect_async<rmq::namesrv_actor>(
    self, p.where, self->state.timeout,
    [=](caf::expected<rmq::namesrv_actor> hdl) {
      auto& p = self->state.peers[i];
      p.connecting = false;
      if (!hdl) {
        say("cannot connect to " + p.addr + ": " + rmq::describe(hdl.error()));
        return;
      }
      p.hdl = std::move(*hdl);
      self->monitor(p.hdl);
      say("connected to " + p.addr);
      register_with(self, i);
    });
}

void heartbeat(self_ptr self, size_t i) {
  auto& reg = self->state.registration;
  rmq::broker_heartbeat_request hb{reg.cluster_name, reg.broker_addr,
                                   reg.broker_name, reg.broker_id};
  self->request(self->state.peers[i].hdl, self->state.timeout, hb)
    .then([=](caf::ok_atom) {},
          [=](const caf::error& err) {
            say("heartbeat to " + self->state.peers[i].addr
                + " failed: " + rmq::describe(err));
          });
}

caf::behavior standin_broker(self_ptr self, std::vector<peer> peers,
                             rmq::register_broker_request registration,
                             caf::timespan register_interval,
                             caf::timespan heartbeat_interval,
                             std::chrono::milliseconds timeout) {
  auto& st = self->state;
  st.peers = std::move(peers);
  st.registration = std::move(registration);
  st.register_interval = register_interval;
  st.heartbeat_interval = heartbeat_interval;
  st.timeout = timeout;
  self->set_down_handler([=](caf::down_msg& dm) {
    for (auto& p : self->state.peers)
      if (p.hdl && p.hdl.address() == dm.source) {
        say("lost " + p.addr + " (" + rmq::describe(dm.reason) + ")");
        p.hdl = nullptr;
      }
  });
  for (size_t i = 0; i < st.peers.size(); ++i)
    connect(self, i);
  self->delayed_send(self, register_interval, register_tick_atom::value);
  if (heartbeat_interval.count() > 0)
    self->delayed_send(self, heartbeat_interval, heartbeat_tick_atom::value);
  return {
    [=](register_tick_atom) {
      auto& st = self->state;
      for (size_t i = 0; i < st.peers.size(); ++i) {
        if (st.peers[i].hdl)
          register_with(self, i);
        else
          connect(self, i);
      }
      self->delayed_send(self, st.register_interval, register_tick_atom::value);
    },
    [=](heartbeat_tick_atom) {
      auto& st = self->state;
      for (size_t i = 0; i < st.peers.size(); ++i)
        if (st.peers[i].hdl)
          heartbeat(self, i);
      self->delayed_send(self, st.heartbeat_interval,
                         heartbeat_tick_atom::value);
    },
  };
}

bool parse_peers(const std::string& list, std::vector<peer>& out) {
  auto addrs = rmq::parse_host_port_list(list);
  if (!addrs)
    return false;
  for (auto& where : *addrs) {
    peer p;
    p.addr = where.to_string();
    p.where = std::move(where);
    out.push_back(std::move(p));
  }
  return true;
}

rmq::register_broker_request make_registration(const config& cfg) {
  rmq::register_broker_request req;
  req.cluster_name = cfg.cluster;
  req.broker_addr = cfg.broker_addr;
  req.broker_name = cfg.broker_name;
  req.broker_id = cfg.broker_id;
  req.heartbeat_timeout_ms = cfg.heartbeat_timeout_ms;
  // A fixed version: re-registrations then do not overwrite what an
  // operator changed on a NameServer (wipeWritePerm), as in RocketMQ.
  req.version = rmq::data_version{1, 1, 1};
  for (auto& topic : split(cfg.topics, ',')) {
    rmq::topic_config tc;
    tc.topic_name = topic;
    tc.read_queue_nums = tc.write_queue_nums = cfg.queues;
    tc.perm = cfg.perm;
    req.topics.push_back(std::move(tc));
  }
  return req;
}

} // namespace

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  config cfg;
  if (auto err = cfg.parse_command_line(argc, argv)) {
    std::cerr << "standin_broker: " << caf::actor_system_config::render(err)
              << std::endl;
    return 2;
  }
  if (cfg.cli_helptext_printed)
    return 0;
  std::vector<peer> peers;
  if (!parse_peers(cfg.namesrv, peers)) {
    std::cerr << "standin_broker: bad --namesrv '" << cfg.namesrv << "'\n";
    return 2;
  }
  if (cfg.register_interval_ms <= 0 || cfg.timeout_ms <= 0) {
    std::cerr << "standin_broker: intervals and timeouts must be > 0\n";
    return 2;
  }
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "standin_broker: " << why << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  sys.spawn(standin_broker, std::move(peers), make_registration(cfg),
            std::chrono::milliseconds{cfg.register_interval_ms},
            std::chrono::milliseconds{cfg.heartbeat_interval_ms},
            std::chrono::milliseconds{cfg.timeout_ms});
  // The actor never quits: the system's destructor waits until we are
  // killed, like a broker that runs until its process ends.
  return 0;
}
