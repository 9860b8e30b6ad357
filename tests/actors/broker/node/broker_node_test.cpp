// A whole broker node (spawn_broker, tests/actors/broker/broker_node_fixture.hpp):
// registration, topic routes, send and pull, long polling, the
// graceful stop and a restart on the same dir, and supervision.
#include "actors/broker/node/broker_node.hpp"
#include "tests/actors/broker/broker_node_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <doctest/doctest.h>

#include "caf/actor_cast.hpp"
#include "caf/actor_system_config.hpp"
#include "caf/after.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/node_id.hpp"
#include "caf/response_promise.hpp"
#include "caf/sec.hpp"

#include "actors/broker/table/topic_config_table.hpp"
#include "actors/namesrv/namesrv_node.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/message/message_id.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/supervisor_probe.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

using fixture = test::broker_node_fixture;

} // namespace

TEST_CASE_FIXTURE(fixture, "the broker registers with the NameServer") {
  CHECK(registered());
  auto res = ask<cluster_info>(namesrv, get_broker_cluster_info_request{});
  auto& addrs = res.broker_addr_table.at("broker-a").broker_addrs;
  CHECK_EQ(addrs.at(0), "127.0.0.1:10921");
}

TEST_CASE_FIXTURE(fixture, "a new topic is routed by the NameServer at once") {
  auto before = ask_error<topic_route_data>(namesrv,
                                            get_route_info_request{"TopicX"});
  CHECK(before);
  create_topic("TopicX");
  auto route = ask<topic_route_data>(namesrv, get_route_info_request{"TopicX"});
  REQUIRE_EQ(route.queue_datas.size(), 1u);
  CHECK_EQ(route.queue_datas[0].broker_name, "broker-a");
  CHECK_EQ(route.queue_datas[0].write_queue_nums, 4);
}

TEST_CASE_FIXTURE(fixture, "a sent message is found by a pull") {
  create_topic("TopicX");
  auto res = send("TopicX", "hello");
  CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
  CHECK_EQ(res.queue_offset, 0);
  auto got = ask<pull_message_result>(node.pull, pull_req("TopicX", 0));
  CHECK_EQ(got.status, static_cast<uint8_t>(pull_status::found));
  CHECK_EQ(got.message_count, 1);
  CHECK_EQ(got.next_begin_offset, 1);
}

TEST_CASE_FIXTURE(fixture, "a message sent back lands in the group's retry "
                           "topic after delay level 3") {
  create_topic("TopicX");
  auto res = send("TopicX", "again");
  auto id = decode_offset_msg_id(res.offset_msg_id);
  REQUIRE(id);
  consumer_send_back_request req;
  req.offset = id->offset;
  req.group = "G";
  req.origin_msg_id = res.msg_id;
  req.origin_topic = "TopicX";
  ask<caf::ok_atom>(node.send_back, req);
  auto retry = pull_req("%RETRY%G", 0);
  retry.queue_id = 0;
  // Level 3 (10 s) in SCHEDULE_TOPIC_XXXX first.
  auto got = ask<pull_message_result>(node.pull, retry);
  CHECK_NE(got.status, static_cast<uint8_t>(pull_status::found));
  sched.advance_time(std::chrono::seconds{10});
  sched.run();
  got = ask<pull_message_result>(node.pull, retry);
  CHECK_EQ(got.status, static_cast<uint8_t>(pull_status::found));
  CHECK_EQ(got.message_count, 1);
  auto progress = ask<schedule_progress>(node.schedule, caf::get_atom::value);
  REQUIRE_EQ(progress.levels.size(), 18u);
  CHECK_EQ(progress.levels[2].offset, 1);
  CHECK_EQ(progress.levels[2].delivered, 1);
}

TEST_CASE_FIXTURE(fixture, "a timed message reaches its topic through the "
                           "node's timer at its time; brokerStatus shows it") {
  create_topic("TopicX");
  send_message_request req;
  req.producer_group = "P";
  req.topic = "TopicX";
  req.queue_id = 0;
  req.body = "later";
  req.properties = std::string{"TIMER_DELAY_SEC\x01"} + "30\x02";
  auto res = ask<send_result>(node.send, req);
  CHECK_EQ(res.status, static_cast<uint8_t>(send_status::send_ok));
  auto status = ask<broker_runtime_info>(node.admin,
                                         broker_runtime_info_request{});
  CHECK_EQ(status.table["timerCongestNum"], "1");
  CHECK_EQ(status.table["timerOffsetBehind"], "0");
  CHECK_EQ(status.table["timerReadBehind"], "0");
  CHECK_EQ(status.table["timerNextDueMs"], "1700000030000");
  sched.advance_time(std::chrono::seconds{29});
  sched.run();
  auto got = ask<pull_message_result>(node.pull, pull_req("TopicX", 0));
  CHECK_NE(got.status, static_cast<uint8_t>(pull_status::found));
  sched.advance_time(std::chrono::seconds{1});
  sched.run();
  got = ask<pull_message_result>(node.pull, pull_req("TopicX", 0));
  CHECK_EQ(got.status, static_cast<uint8_t>(pull_status::found));
  CHECK_EQ(got.message_count, 1);
  auto progress = ask<timer_progress>(node.timer, caf::get_atom::value);
  CHECK_EQ(progress.pending, 0);
  CHECK_EQ(progress.delivered, 1);
}

TEST_CASE_FIXTURE(fixture, "a held pull is answered when a message arrives") {
  create_topic("TopicX");
  auto req = pull_req("TopicX", 0);
  req.sys_flag = pull_sys_flag::suspend;
  req.suspend_timeout_ms = 15000;
  auto rh = self->request(node.pull, caf::infinite, req);
  sched.run();
  REQUIRE(self->mailbox().empty());
  send("TopicX", "wake up");
  sched.run();
  REQUIRE_FALSE(self->mailbox().empty());
  rh.receive(
    [](const pull_message_result& got) {
      CHECK_EQ(got.status, static_cast<uint8_t>(pull_status::found));
      CHECK_EQ(got.message_count, 1);
    },
    [&](const caf::error& err) { FAIL(sys.render(err)); });
}

TEST_CASE_FIXTURE(fixture, "stop unregisters; a restart keeps the data") {
  create_topic("TopicX");
  send("TopicX", "kept");
  caf::anon_send(node.offsets, update_offset_request{"G", "TopicX", 0, 1});
  sched.run();
  REQUIRE(registered());
  stop();
  CHECK_FALSE(registered());
  start();
  CHECK(registered());
  auto tc = ask<topic_config>(node.topics, caf::get_atom::value,
                              std::string{"TopicX"});
  CHECK_EQ(tc.write_queue_nums, 4);
  auto got = ask<pull_message_result>(node.pull, pull_req("TopicX", 0));
  CHECK_EQ(got.status, static_cast<uint8_t>(pull_status::found));
  CHECK_EQ(got.message_count, 1);
  query_offset_request q;
  q.consumer_group = "G";
  q.topic = "TopicX";
  CHECK_EQ(ask<int64_t>(node.offsets, q), 1);
}

TEST_CASE_FIXTURE(fixture, "a killed stateful actor stops the node") {
  test::supervisor_probe probe{*this, node.supervisor};
  CHECK_FALSE(probe.failure());
  probe.kill("consumer_offset_table");
  auto failure = probe.failure();
  REQUIRE(failure);
  CHECK_NE(failure->find("consumer_offset_table"), std::string::npos);
}

TEST_CASE("spawn_broker answers errors instead of starting") {
  test::deterministic_fixture fx;
  test::temp_dir dir;
  broker_options opts;
  opts.store = test::small_config(dir.path());
  opts.detach_io = false;
  SUBCASE("no store dir") {
    CHECK_FALSE(spawn_broker(fx.sys, opts));
  }
  SUBCASE("a listen host that is not IPv4") {
    opts.store_dir = dir.path();
    opts.listen_host = "broker.example";
    auto res = spawn_broker(fx.sys, opts);
    REQUIRE_FALSE(res);
    CHECK_EQ(res.error().code(),
             make_error(errc::invalid_parameter, "").code());
  }
  SUBCASE("a store that cannot be opened") {
    auto file = dir.path() + "/plain-file";
    { std::ofstream{file} << "x"; }
    opts.store_dir = file;
    CHECK_FALSE(spawn_broker(fx.sys, opts));
  }
}

TEST_CASE("on the threaded scheduler the node serves and stops") {
  // Detached I/O actors and the blocking stop, as rmq-node will run them.
  test::temp_dir dir;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  broker_options opts;
  opts.store_dir = dir.path();
  opts.store = test::small_config(dir.path());
  // No NameServer; a connector, as this system has no middleman.
  opts.namesrv_addr = test::namesrv_addr;
  opts.connector = sys.spawn(test::fake_connector,
                             std::make_shared<test::fake_net>());
  auto started = spawn_broker(sys, opts);
  REQUIRE_MESSAGE(started, describe(started.error()));
  auto node = std::move(*started);
  caf::scoped_actor self{sys};
  topic_config tc;
  tc.topic_name = "TopicX";
  tc.read_queue_nums = tc.write_queue_nums = 4;
  bool created = false;
  self->request(node.topics, 5s, caf::put_atom::value, tc)
    .receive([&](const data_version&) { created = true; },
             [&](const caf::error& err) { FAIL(sys.render(err)); });
  REQUIRE(created);
  send_message_request req;
  req.producer_group = "P";
  req.topic = "TopicX";
  req.queue_id = 0;
  req.body = "threaded";
  uint8_t status = 0xFF;
  self->request(node.send, 5s, req)
    .receive([&](const send_result& res) { status = res.status; },
             [&](const caf::error& err) { FAIL(sys.render(err)); });
  CHECK_EQ(status, static_cast<uint8_t>(send_status::send_ok));
  self->monitor(node.supervisor);
  node.stop(sys);
  CHECK(node.actors.empty());
  // A graceful stop is no failure.
  caf::error reason = make_error(errc::system_error, "no down message");
  self->receive([&](const caf::down_msg& dm) { reason = dm.reason; },
                caf::after(5s) >> [] {});
  CHECK_EQ(reason, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(opts.connector, caf::exit_reason::user_shutdown);
  CHECK(std::filesystem::exists(topics_json_path(dir.path())));
}

TEST_CASE_FIXTURE(fixture, "a killed registrar is respawned and rewired") {
  test::supervisor_probe probe{*this, node.supervisor};
  auto first = probe.current("namesrv_registrar");
  probe.kill("namesrv_registrar");
  CHECK_FALSE(probe.failure());
  auto second = probe.current("namesrv_registrar");
  CHECK_NE(first, second);
  track(second);
  CHECK(registered());
  // The replacement watches the topic table.
  create_topic("TopicY");
  auto route = ask<topic_route_data>(namesrv, get_route_info_request{"TopicY"});
  CHECK_EQ(route.queue_datas.size(), 1u);
  // The stop ends the replacement with the supervisor; the NameServer
  // drops the broker whose registering actor went down.
  stop();
  CHECK_FALSE(registered());
}

TEST_CASE_FIXTURE(fixture, "a consumer heartbeat creates its group and retry "
                           "topic") {
  create_topic("TopicX");
  consumer_data cd;
  cd.group_name = "G";
  subscription_data sub;
  sub.topic = "TopicX";
  cd.subscriptions.push_back(sub);
  ask<caf::ok_atom>(node.clients, client_heartbeat{"10.0.0.9@c1", {}, {cd}});
  auto group = ask<subscription_group_config>(node.groups, caf::get_atom::value,
                                              std::string{"G"});
  CHECK_EQ(group.group_name, "G");
  auto retry = ask<topic_config>(node.topics, caf::get_atom::value,
                                 std::string{"%RETRY%G"});
  CHECK_EQ(retry.topic_name, "%RETRY%G");
}

TEST_CASE_FIXTURE(fixture, "a slave registers under its master's name and "
                           "refuses sends") {
  test::temp_dir slave_dir;
  auto opts = options_for(slave_dir.path());
  opts.broker_id = 1;
  opts.port = 10931;
  auto started = spawn_broker(sys, opts);
  REQUIRE_MESSAGE(started, describe(started.error()));
  auto slave = std::move(*started);
  sched.run();
  auto info = ask<cluster_info>(namesrv, get_broker_cluster_info_request{});
  auto& addrs = info.broker_addr_table.at("broker-a").broker_addrs;
  CHECK_EQ(addrs, (std::map<int64_t, std::string>{{0, "127.0.0.1:10921"},
                                                  {1, "127.0.0.1:10931"}}));
  create_topic("TopicX");
  send_message_request req;
  req.producer_group = "P";
  req.topic = "TopicX";
  req.queue_id = 0;
  req.body = "to the slave";
  CHECK(ask_error<send_result>(slave.send, req) == errc::service_not_available);
  auto stopper = slave.begin_stop(sys);
  sched.run();
  info = ask<cluster_info>(namesrv, get_broker_cluster_info_request{});
  CHECK_EQ(info.broker_addr_table.at("broker-a").broker_addrs.count(1), 0u);
}
