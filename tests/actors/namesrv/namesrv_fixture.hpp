// A whole NameServer node (spawn_namesrv) on the deterministic fixture, plus
// helpers that speak to its front actor the way a broker or client would.
// Tests reach the inner actors by the "actor" name of their dump.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"

#include "actors/namesrv/namesrv_frontend.hpp"
#include "actors/namesrv/namesrv_node.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "tests/support/deterministic_fixture.hpp"

namespace rmq::test {

inline const std::string cluster_a = "DefaultCluster";
inline const std::string cluster_b = "OtherCluster";
inline const std::string addr0 = "10.0.0.1:10911";
inline const std::string addr1 = "10.0.0.2:10911";
inline const std::string addr2 = "10.0.0.3:10911";

/// A topic a broker announces: 8 read and 8 write queues by default.
inline topic_config make_topic(std::string name,
                               int32_t permission = perm::read_write,
                               int32_t queues = 8) {
  topic_config cfg;
  cfg.topic_name = std::move(name);
  cfg.read_queue_nums = queues;
  cfg.write_queue_nums = queues;
  cfg.perm = permission;
  return cfg;
}

/// A registration with topics and a data version of {state, 1, 1}.
inline register_broker_request
make_registration(std::string cluster, std::string name, std::string addr,
                  int64_t id, std::vector<std::string> topics,
                  int64_t state_version = 0) {
  register_broker_request req;
  req.cluster_name = std::move(cluster);
  req.broker_name = std::move(name);
  req.broker_addr = addr;
  req.broker_id = id;
  req.ha_server_addr = addr.substr(0, addr.rfind(':')) + ":10912";
  req.version = data_version{state_version, 1, 1};
  for (auto& topic : topics)
    req.topics.push_back(make_topic(topic));
  return req;
}

inline unregister_broker_request
unregistration_of(const register_broker_request& req) {
  return {req.cluster_name, req.broker_addr, req.broker_name, req.broker_id};
}

inline broker_heartbeat_request
heartbeat_of(const register_broker_request& req) {
  return {req.cluster_name, req.broker_addr, req.broker_name, req.broker_id};
}

inline namesrv_options test_options() {
  namesrv_options opts;
  opts.detach_io = false; // the test coordinator runs everything
  return opts;
}

class namesrv_fixture : public deterministic_fixture {
public:
  explicit namesrv_fixture(namesrv_options opts = test_options()) {
    opts.detach_io = false;
    node = spawn_namesrv(sys, opts);
    track(node.supervisor); // first: it stops before the actors it watches
    for (auto& hdl : node.actors)
      track(hdl);
    sched.run();
    ns = node.frontend;
    for (auto& hdl : node.actors) {
      if (hdl == caf::actor_cast<caf::actor>(ns))
        continue;
      auto text = ask<std::string>(caf::actor_cast<dumpable_actor>(hdl),
                                   dump_atom::value);
      by_name_[nlohmann::json::parse(text).at("actor")] = hdl;
    }
  }

  /// Returns the node's actor whose dump says `name`, with a typed handle.
  template <class Handle>
  Handle actor_named(const std::string& name) {
    auto i = by_name_.find(name);
    REQUIRE(i != by_name_.end());
    return caf::actor_cast<Handle>(i->second);
  }

  /// Returns the dump of one actor of the node.
  nlohmann::json dump_of(const std::string& name) {
    auto hdl = actor_named<dumpable_actor>(name);
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }

  /// Returns the dump of the whole node.
  nlohmann::json dump_node() {
    return nlohmann::json::parse(ask<std::string>(ns, dump_atom::value));
  }

  register_broker_result register_broker(const register_broker_request& req) {
    return ask<register_broker_result>(ns, req);
  }

  void unregister(const register_broker_request& req) {
    ask<caf::ok_atom>(ns, unregistration_of(req));
  }

  void heartbeat(const register_broker_request& req) {
    ask<caf::ok_atom>(ns, heartbeat_of(req));
  }

  topic_route_data route(const std::string& topic) {
    return ask<topic_route_data>(ns, get_route_info_request{topic});
  }

  /// True if the topic has a route; false on topic_not_exist.
  bool routed(const std::string& topic) {
    bool result = false;
    request(ns, get_route_info_request{topic})
      .receive([&](const topic_route_data&) { result = true; },
               [&](const caf::error& err) {
                 CHECK_MESSAGE(err == errc::topic_not_exist, sys.render(err));
               });
    return result;
  }

  caf::error route_error(const std::string& topic) {
    return ask_error<topic_route_data>(ns, get_route_info_request{topic});
  }

  cluster_info clusters() {
    return ask<cluster_info>(ns, get_broker_cluster_info_request{});
  }

  std::vector<std::string> all_topics() {
    return ask<topic_list>(ns, get_all_topic_list_request{}).topics;
  }

  /// Perm of `broker`'s queues of `topic` (-1 if it has none).
  int32_t perm_of(const std::string& topic, const std::string& broker) {
    for (auto& qd : route(topic).queue_datas)
      if (qd.broker_name == broker)
        return qd.perm;
    return -1;
  }

  /// Addresses of one broker group (empty if unknown).
  std::map<int64_t, std::string> addrs_of(const std::string& broker) {
    auto info = clusters();
    auto i = info.broker_addr_table.find(broker);
    if (i == info.broker_addr_table.end())
      return {};
    return i->second.broker_addrs;
  }

  namesrv_node node;
  namesrv_actor ns;

private:
  std::map<std::string, caf::actor> by_name_;
};

/// Options with a tiny unregistration queue, for queue_full tests.
inline namesrv_options options_with(size_t capacity) {
  auto opts = test_options();
  opts.unregister_queue_capacity = capacity;
  return opts;
}

/// A node without the scan timer: tests drive expiry themselves or need
/// none.
struct no_scan_fixture : namesrv_fixture {
  static namesrv_options opts() {
    auto result = test_options();
    result.scan_interval = caf::timespan{0};
    return result;
  }
  no_scan_fixture() : namesrv_fixture(opts()) {
    // nop
  }
};

} // namespace rmq::test
