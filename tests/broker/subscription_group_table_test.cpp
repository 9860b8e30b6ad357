// The subscription group table: RocketMQ's system groups, create / update /
// delete / get / list with a data version, auto-create on and off, the
// config file across a restart, a failed save rolled back, dumps.
#include "actors/broker/subscription_group_table.hpp"

#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/errors.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;

namespace {

struct fixture : test::deterministic_fixture {
  test::temp_dir dir{"rmq-subgroup"};
  std::string path = dir.path() + "/config/subscriptionGroup.json";
  int64_t wall_ms = 1700000000000;
  subscription_group_table_actor table;

  void start(bool auto_create = true, std::string file = "") {
    if (table) {
      caf::anon_send_exit(table, caf::exit_reason::user_shutdown);
      sched.run();
    }
    subscription_group_table_options opts;
    opts.path = file.empty() ? path : file;
    opts.auto_create = auto_create;
    opts.now_ms = [this] { return wall_ms; };
    table = spawn(subscription_group_table, opts);
  }

  data_version put(subscription_group_config cfg) {
    return ask<data_version>(table, caf::put_atom::value, cfg);
  }

  subscription_group_config get(const std::string& group) {
    return ask<subscription_group_config>(table, caf::get_atom::value, group);
  }

  subscription_group_set list() {
    return ask<subscription_group_set>(table, caf::get_atom::value);
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(table, dump_atom::value));
  }
};

subscription_group_config group(std::string name, int32_t retry_max = 16) {
  subscription_group_config cfg;
  cfg.group_name = std::move(name);
  cfg.retry_max_times = retry_max;
  return cfg;
}

} // namespace

TEST_SUITE("broker.subscription_group_table") {
  TEST_CASE_FIXTURE(fixture, "the system groups exist from the start") {
    start();
    auto all = list();
    CHECK_EQ(all.groups.size(), 8u);
    CHECK_EQ(all.version.counter, 0);
    CHECK(get("TOOLS_CONSUMER").consume_broadcast_enable);
    CHECK(get("CID_RMQ_SYS_TRANS").consume_broadcast_enable);
    CHECK_EQ(get("SELF_TEST_C_GROUP").retry_max_times, 16);
    // Nothing changed, so nothing was written.
    CHECK_FALSE(std::filesystem::exists(path));
  }

  TEST_CASE_FIXTURE(fixture, "create, update, get, delete bump the version") {
    start();
    auto v1 = put(group("G1", 5));
    CHECK_EQ(v1.counter, 1);
    CHECK_EQ(v1.timestamp, wall_ms);
    CHECK_EQ(get("G1").retry_max_times, 5);
    ++wall_ms;
    auto v2 = put(group("G1", 7));
    CHECK_EQ(v2.counter, 2);
    CHECK_EQ(v2.timestamp, wall_ms);
    CHECK_EQ(get("G1").retry_max_times, 7);
    CHECK_EQ(ask<data_version>(table, caf::delete_atom::value,
                               std::string{"G1"})
               .counter,
             3);
    auto err = ask_error<subscription_group_config>(table, caf::get_atom::value,
                                                    std::string{"G1"});
    CHECK(err == errc::subscription_group_not_exist);
    // Deleting an unknown group succeeds and changes nothing.
    CHECK_EQ(ask<data_version>(table, caf::delete_atom::value,
                               std::string{"nope"})
               .counter,
             3);
    // Bad names and settings are refused.
    CHECK(ask_error<data_version>(table, caf::put_atom::value, group("a b"))
          == errc::invalid_parameter);
    CHECK(ask_error<data_version>(table, caf::put_atom::value, group(""))
          == errc::invalid_parameter);
    CHECK(ask_error<data_version>(table, caf::put_atom::value, group("G", -5))
          == errc::invalid_parameter);
    CHECK_EQ(list().version.counter, 3);
  }

  TEST_CASE_FIXTURE(fixture, "find auto-creates a group when on") {
    start(true);
    auto cfg = ask<subscription_group_config>(
      table, find_subscription_group_request{"NEW"});
    CHECK_EQ(cfg.group_name, "NEW");
    CHECK_EQ(cfg.retry_queue_nums, 1);
    CHECK_EQ(get("NEW").group_name, "NEW");
    CHECK_EQ(list().version.counter, 1);
    CHECK_EQ(dump()["auto_created"], 1);
    // Found again: no new version.
    ask<subscription_group_config>(table,
                                   find_subscription_group_request{"NEW"});
    CHECK_EQ(list().version.counter, 1);
  }

  TEST_CASE_FIXTURE(fixture, "find refuses an unknown group when off") {
    start(false);
    auto err = ask_error<subscription_group_config>(
      table, find_subscription_group_request{"NEW"});
    CHECK(err == errc::subscription_group_not_exist);
    CHECK_EQ(list().groups.size(), 8u);
    put(group("NEW"));
    CHECK_EQ(ask<subscription_group_config>(
               table, find_subscription_group_request{"NEW"})
               .group_name,
             "NEW");
  }

  TEST_CASE_FIXTURE(fixture, "groups and version survive a restart") {
    start();
    put(group("G1", 5));
    ask<subscription_group_config>(table,
                                   find_subscription_group_request{"AUTO"});
    ask<data_version>(table, caf::delete_atom::value,
                      std::string{"TOOLS_CONSUMER"});
    auto before = list();
    REQUIRE(std::filesystem::exists(path));
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
    auto doc = nlohmann::json::parse(test::read_file(path));
    CHECK_EQ(doc["subscriptionGroupTable"]["G1"]["retry_max_times"], 5);
    CHECK_EQ(doc["dataVersion"]["counter"], 3);
    start();
    auto after = list();
    CHECK_EQ(after.version, before.version);
    CHECK_EQ(get("G1").retry_max_times, 5);
    CHECK_EQ(get("AUTO").group_name, "AUTO");
    // A deleted system group comes back at start, as in RocketMQ (init()
    // puts it before the file is loaded).
    CHECK_EQ(after.groups.size(), before.groups.size() + 1);
    CHECK_EQ(dump()["path"], path);
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt file blocks saving and is kept") {
    std::filesystem::create_directories(dir.path() + "/config");
    test::write_file(path, "{\"subscriptionGroupTable\": ");
    start();
    auto err = ask_error<data_version>(table, caf::put_atom::value, group("G"));
    CHECK(err == errc::corrupt_data);
    CHECK_EQ(test::read_file(path), "{\"subscriptionGroupTable\": ");
    // The failed change was rolled back.
    CHECK(ask_error<subscription_group_config>(table, caf::get_atom::value,
                                               std::string{"G"})
          == errc::subscription_group_not_exist);
    auto d = dump();
    CHECK_EQ(d["actor"], "subscription_group_table");
    CHECK_EQ(d["save_errors"], 1);
    CHECK_NE(d["save_blocked"], "");
    CHECK_EQ(d["data_version"]["counter"], 0);
  }
}
