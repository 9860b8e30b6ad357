// A whole broker node (spawn_broker) on the deterministic coordinator with
// a temp store dir and an in-process NameServer reached through a fake
// connector. Shared by the node and the front-actor tests.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <doctest/doctest.h>

#include "caf/actor_cast.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/node_id.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"

#include "actors/broker/broker_node.hpp"
#include "actors/namesrv/namesrv_node.hpp"
#include "messages/errors.hpp"
#include "messages/namesrv.hpp"
#include "tests/runtime/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"

namespace rmq::test {

inline const std::string namesrv_addr = "10.0.0.1:9876";

// Hands out the in-process NameServer behind an address, like the
// middleman's connect; refuses every other address.
inline caf::behavior
fake_connector(caf::event_based_actor* self,
               std::shared_ptr<std::map<std::string, namesrv_actor>> up) {
  return {
    [=](caf::connect_atom, const std::string& host, uint16_t port) {
      auto rp = self->make_response_promise();
      auto i = up->find(host + ":" + std::to_string(port));
      if (i == up->end()) {
        rp.deliver(caf::make_error(caf::sec::cannot_connect_to_node));
        return rp;
      }
      rp.deliver(caf::node_id{},
                 caf::actor_cast<caf::strong_actor_ptr>(i->second),
                 self->system().message_types(i->second));
      return rp;
    },
  };
}

struct broker_node_fixture : deterministic_fixture {
  temp_dir dir;
  std::shared_ptr<std::map<std::string, namesrv_actor>> up
    = std::make_shared<std::map<std::string, namesrv_actor>>();
  namesrv_actor namesrv;
  broker_node node;

  broker_node_fixture() {
    namesrv_options nopts;
    nopts.detach_io = false;
    auto ns = spawn_namesrv(sys, nopts);
    track(ns.supervisor);
    for (auto& hdl : ns.actors)
      track(hdl);
    namesrv = ns.frontend;
    (*up)[namesrv_addr] = namesrv;
    sched.run();
    start();
  }

  ~broker_node_fixture() {
    if (!node.actors.empty()) {
      // Held until done: an actor nobody references is terminated.
      auto stopper = node.begin_stop(sys);
      sched.run();
    }
  }

  /// The fixture's broker settings over the store at `store_dir`.
  broker_options options_for(const std::string& store_dir) {
    broker_options opts;
    opts.store_dir = store_dir;
    opts.store = small_config(store_dir);
    opts.namesrv_addr = namesrv_addr;
    opts.detach_io = false;
    opts.connector = spawn(fake_connector, up);
    // Wall time moves with the virtual clock: delay levels come due.
    opts.wall_clock_ms = [this] {
      auto since = sched.clock().now().time_since_epoch();
      return int64_t{1'700'000'000'000}
             + std::chrono::duration_cast<std::chrono::milliseconds>(since)
                 .count();
    };
    opts.seed = 42;
    return opts;
  }

  void start() {
    auto started = spawn_broker(sys, options_for(dir.path()));
    REQUIRE_MESSAGE(started, describe(started.error()));
    node = std::move(*started);
    track(node.supervisor);
    for (auto& hdl : node.actors)
      track(hdl);
    sched.run();
  }

  void stop() {
    auto stopper = node.begin_stop(sys);
    self->monitor(stopper);
    sched.run();
    // Other down messages (a probed supervisor's) may come first.
    bool done = false;
    while (!done && !self->mailbox().empty())
      self->receive([&](const caf::down_msg& dm) {
        done = dm.source == stopper.address();
      });
    REQUIRE(done);
  }

  bool registered() {
    auto info = ask<cluster_info>(namesrv, get_broker_cluster_info_request{});
    auto i = info.cluster_addr_table.find("DefaultCluster");
    return i != info.cluster_addr_table.end()
           && std::count(i->second.begin(), i->second.end(), "broker-a") == 1
           && info.broker_addr_table.count("broker-a") == 1;
  }

  void create_topic(const std::string& name) {
    topic_config tc;
    tc.topic_name = name;
    tc.read_queue_nums = tc.write_queue_nums = 4;
    ask<data_version>(node.topics, caf::put_atom::value, tc);
  }

  send_result send(const std::string& topic, const std::string& body) {
    send_message_request req;
    req.producer_group = "P";
    req.topic = topic;
    req.queue_id = 0;
    req.body = body;
    return ask<send_result>(node.send, req);
  }

  static pull_message_request pull_req(const std::string& topic,
                                       int64_t offset) {
    pull_message_request req;
    req.consumer_group = "G";
    req.topic = topic;
    req.queue_id = 0;
    req.queue_offset = offset;
    req.subscription = "*";
    return req;
  }
};

} // namespace rmq::test
