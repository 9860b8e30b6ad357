// A whole broker node (spawn_broker) on the deterministic coordinator with
// a temp store dir and an in-process NameServer reached through a fake
// connector (tests/support/fake_connector.hpp). Shared by the node, the
// front-actor and the transaction tests.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <doctest/doctest.h>

#include "caf/actor_cast.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/node_id.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"

#include "actors/broker/node/broker_node.hpp"
#include "actors/namesrv/namesrv_node.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/fake_connector.hpp"

namespace rmq::test {

inline const std::string namesrv_addr = "10.0.0.1:9876";

struct broker_node_fixture : deterministic_fixture {
  temp_dir dir;
  /// The in-process NameServer behind namesrv_addr.
  std::shared_ptr<fake_net> net = std::make_shared<fake_net>();
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
    net->publish(namesrv_addr, namesrv);
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
    opts.connector = spawn(fake_connector, net);
    opts.wall_clock = [this] { return now_ms(); };
    opts.seed = 42;
    return opts;
  }

  /// Returns the node's wall clock in ms. It moves with the virtual
  /// clock: delay levels and transaction timeouts come due.
  int64_t now_ms() {
    auto since = sched.clock().now().time_since_epoch();
    return int64_t{1'700'000'000'000}
           + std::chrono::duration_cast<std::chrono::milliseconds>(since)
               .count();
  }

  /// Starts the node on the fixture's store, with `tweak` applied to its
  /// options.
  void start(const std::function<void(broker_options&)>& tweak = nullptr) {
    auto opts = options_for(dir.path());
    if (tweak)
      tweak(opts);
    auto started = spawn_broker(sys, opts);
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

  /// Stops the node and starts it again on the same store, with `tweak`
  /// applied to its options.
  void restart(const std::function<void(broker_options&)>& tweak = nullptr) {
    stop();
    node = broker_node{};
    start(tweak);
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

  /// A transaction's half message of `group` to topic T, queue
  /// `queue_id`, born now, with UNIQ_KEY "TXN<n>" for the n-th one.
  send_message_request half_req(const std::string& body,
                                const std::string& group, int32_t queue_id) {
    send_message_request req;
    req.producer_group = group;
    req.topic = "T";
    req.queue_id = queue_id;
    req.body = body;
    req.born_timestamp = now_ms();
    append_property(req.properties, property_tran_msg, "true");
    append_property(req.properties, property_producer_group, group);
    append_property(req.properties, property_uniq_key,
                    "TXN" + std::to_string(++halves_));
    return req;
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

private:
  int halves_ = 0;
};

} // namespace rmq::test
