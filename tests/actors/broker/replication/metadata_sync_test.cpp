// A slave's metadata following its master's on the deterministic
// coordinator: the master's metadata service and the slave's sync between
// real topic, group and offset tables and the slave's delay-level service;
// topics and groups travel when their version changed, offsets and
// progress only move forward, another group's slave is refused, and a
// lost master is asked no more.
#include <chrono>
#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/broker/delayed/schedule_service.hpp"
#include "actors/broker/replication/metadata_service.hpp"
#include "actors/broker/replication/slave_sync.hpp"
#include "actors/broker/table/consumer_offset_table.hpp"
#include "actors/broker/table/subscription_group_table.hpp"
#include "actors/broker/table/topic_config_table.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

/// What the master's delay levels and timer say; the test moves them.
struct progress_board {
  schedule_progress schedule;
  timer_progress timer;
  std::vector<timer_progress> timer_syncs; // what the slave's timer got
};

using board_ptr = std::shared_ptr<progress_board>;

schedule_service_actor::behavior_type
board_schedule(schedule_service_actor::pointer, board_ptr b) {
  return {
    [b](caf::get_atom) { return b->schedule; },
    [](arrival_atom, int64_t) {},
    [](sync_atom, const schedule_progress&) {},
    [](tick_atom, int32_t, uint64_t) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

timer_service_actor::behavior_type board_timer(timer_service_actor::pointer,
                                               board_ptr b) {
  return {
    [b](caf::get_atom) { return b->timer; },
    [](arrival_atom, int64_t) {},
    [b](sync_atom, const timer_progress& x) { b->timer_syncs.push_back(x); },
    [](tick_atom, int32_t, uint64_t) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

struct tables {
  topic_config_table_actor topics;
  subscription_group_table_actor groups;
  consumer_offset_table_actor offsets;
};

struct fixture : test::deterministic_fixture {
  board_ptr board = std::make_shared<progress_board>();
  tables master, slave;
  metadata_service_actor service;
  schedule_service_actor slave_schedule;
  slave_sync_actor sync;
  test::temp_dir dir;

  tables spawn_tables() {
    tables t;
    topic_config_table_options to; // no file: memory only
    t.topics = spawn(topic_config_table, to);
    t.groups = spawn(subscription_group_table,
                     subscription_group_table_options{});
    t.offsets = spawn(consumer_offset_table, consumer_offset_config{},
                      queue_service_actor{});
    return t;
  }

  fixture() {
    master = spawn_tables();
    slave = spawn_tables();
    for (int level = 1; level <= 18; ++level)
      board->schedule.levels.push_back({level, 1000, 0, 0, 0});
    metadata_service_options mo;
    mo.broker_name = "broker-a";
    mo.topics = master.topics;
    mo.groups = master.groups;
    mo.offsets = master.offsets;
    mo.schedule = spawn(board_schedule, board);
    mo.timer = spawn(board_timer, board);
    service = spawn(metadata_service, mo);
    schedule_service_options so;
    so.offsets_path = dir.path() + "/delayOffset.json";
    so.slave = true;
    slave_schedule = spawn(schedule_service, so, queue_service_actor{},
                           commit_log_writer_actor{});
    slave_sync_options ss;
    ss.broker_name = "broker-a";
    ss.broker_id = 1;
    ss.topics = slave.topics;
    ss.groups = slave.groups;
    ss.offsets = slave.offsets;
    ss.schedule = slave_schedule;
    ss.timer = spawn(board_timer, board);
    sync = spawn(slave_sync, ss);
    sched.run();
  }

  void connect() {
    caf::anon_send(sync, caf::put_atom::value,
                   caf::actor_cast<metadata_source_actor>(service));
    sched.run();
  }

  void commit(const consumer_offset_table_actor& t, int64_t offset) {
    caf::anon_send(t, update_offset_request{"G", "T", 0, offset});
    sched.run();
  }

  int64_t offset_at(const consumer_offset_table_actor& t) {
    return ask<int64_t>(t, query_offset_request{"G", "T", 0, false});
  }

  int64_t slave_level(int32_t level) {
    auto p = ask<schedule_progress>(slave_schedule, caf::get_atom::value);
    return p.levels.at(static_cast<size_t>(level - 1)).offset;
  }

  template <class Handle>
  nlohmann::json dump(const Handle& hdl) {
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }
};

topic_config topic(const std::string& name, int32_t queues) {
  topic_config cfg;
  cfg.topic_name = name;
  cfg.read_queue_nums = cfg.write_queue_nums = queues;
  return cfg;
}

} // namespace

TEST_SUITE("broker.replication") {
  TEST_CASE_FIXTURE(fixture, "a slave takes its master's topics and groups "
                             "whole, and again only when they change") {
    ask<data_version>(master.topics, caf::put_atom::value, topic("T1", 4));
    subscription_group_config g;
    g.group_name = "G1";
    ask<data_version>(master.groups, caf::put_atom::value, g);
    connect();
    auto m = ask<topic_config_set>(master.topics, caf::get_atom::value);
    auto s = ask<topic_config_set>(slave.topics, caf::get_atom::value);
    CHECK_EQ(s.version, m.version);
    CHECK_EQ(s.topics, m.topics);
    CHECK_EQ(ask<topic_config>(slave.topics, caf::get_atom::value,
                               std::string{"T1"})
               .write_queue_nums,
             4);
    CHECK_EQ(ask<subscription_group_config>(slave.groups, caf::get_atom::value,
                                            std::string{"G1"})
               .group_name,
             "G1");
    CHECK_EQ(dump(sync)["topic_syncs"], 1);
    // Nothing changed: asked again, nothing taken again.
    advance_time(3s, 1s);
    CHECK_GE(dump(sync)["syncs"].get<int>(), 3);
    CHECK_EQ(dump(sync)["topic_syncs"], 1);
    CHECK_EQ(dump(sync)["group_syncs"], 1);
    // A topic created and one deleted on the master: on the slave within
    // one interval.
    ask<data_version>(master.topics, caf::put_atom::value, topic("T2", 2));
    ask<data_version>(master.topics, caf::delete_atom::value,
                      std::string{"T1"});
    advance_time(1s, 1s);
    CHECK_EQ(ask<topic_config>(slave.topics, caf::get_atom::value,
                               std::string{"T2"})
               .write_queue_nums,
             2);
    auto err = ask_error<topic_config>(slave.topics, caf::get_atom::value,
                                       std::string{"T1"});
    CHECK_EQ(err, errc::topic_not_exist);
    CHECK_EQ(dump(sync)["topic_syncs"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "offsets and delay levels reach the slave and "
                             "only ever move forward there") {
    commit(master.offsets, 5);
    board->schedule.levels[2].offset = 7;
    board->timer.read_ms = 1'700'000'001'000;
    connect();
    CHECK_EQ(offset_at(slave.offsets), 5);
    CHECK_EQ(slave_level(3), 7);
    REQUIRE_FALSE(board->timer_syncs.empty());
    CHECK_EQ(board->timer_syncs.back().read_ms, 1'700'000'001'000);
    // The delay offsets are in the slave's file, for a promotion.
    auto file = nlohmann::json::parse(
      test::read_file(dir.path() + "/delayOffset.json"));
    CHECK_EQ(file["offsetTable"]["3"], 7);
    // A consumer moved to the slave committed further than the master
    // knows; the master's older offset and level do not take it back.
    commit(slave.offsets, 9);
    commit(master.offsets, 6);
    board->schedule.levels[2].offset = 4;
    advance_time(2s, 1s);
    CHECK_EQ(offset_at(slave.offsets), 9);
    CHECK_EQ(slave_level(3), 7);
    // Once the master is further, the slave follows.
    commit(master.offsets, 12);
    advance_time(1s, 1s);
    CHECK_EQ(offset_at(slave.offsets), 12);
  }

  TEST_CASE_FIXTURE(fixture, "a lost master is asked no more; another "
                             "group's slave is refused") {
    connect();
    auto syncs = dump(sync)["syncs"].get<int>();
    CHECK_GE(syncs, 1);
    caf::anon_send(sync, caf::put_atom::value, metadata_source_actor{});
    sched.run();
    commit(master.offsets, 5);
    advance_time(5s, 1s);
    CHECK_EQ(dump(sync)["syncs"], syncs);
    CHECK_EQ(dump(sync)["connected"], false);
    CHECK_EQ(ask_error<int64_t>(slave.offsets,
                                query_offset_request{"G", "T", 0, false}),
             errc::query_not_found);
    auto err = ask_error<metadata_snapshot>(
      service, metadata_request{"broker-b", 1, {}, {}});
    CHECK_EQ(err, errc::no_permission);
    CHECK_NE(error_detail(err).find("not of broker-b"), std::string::npos);
    CHECK_EQ(dump(service)["refused"], 1);
  }
}
