// The subscription group table: RocketMQ's system groups, create / update /
// delete / get / list with a data version, auto-create on and off, the
// config file across a restart, a failed save rolled back, dumps.
#include "actors/broker/table/subscription_group_table.hpp"

#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
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
    opts.wall_clock = [this] { return wall_ms; };
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

  TEST_CASE_FIXTURE(fixture, "a truncated file is kept aside and groups "
                             "work again at once") {
    std::filesystem::create_directories(dir.path() + "/config");
    const std::string text = "{\"subscriptionGroupTable\": ";
    test::write_file(path, text);
    start();
    auto d = dump();
    CHECK_EQ(d["actor"], "subscription_group_table");
    auto copy = d["corrupt_copy"].get<std::string>();
    CHECK_EQ(copy, path + ".corrupt.1");
    CHECK_EQ(test::read_file(copy), text);
    CHECK_EQ(d["save_blocked"], "");
    // New and auto-created groups are served and saved.
    put(group("G", 3));
    CHECK_EQ(ask<subscription_group_config>(
               table, find_subscription_group_request{"AUTO"})
               .group_name,
             "AUTO");
    auto doc = nlohmann::json::parse(test::read_file(path));
    CHECK(doc["subscriptionGroupTable"].contains("G"));
    CHECK(doc["subscriptionGroupTable"].contains("AUTO"));
    // A valid JSON document of the wrong shape is damaged too.
    test::write_file(path, "[1, 2]");
    start();
    CHECK_EQ(dump()["corrupt_copy"], path + ".corrupt.2");
    CHECK_EQ(get("TOOLS_CONSUMER").group_name, "TOOLS_CONSUMER");
  }

  TEST_CASE_FIXTURE(fixture, "a failed save keeps the change and saves it "
                             "again until it lands") {
    start();
    put(group("G1"));
    // Nothing can be written: a folder where the temp file goes.
    std::filesystem::create_directories(path + ".tmp");
    auto v = put(group("G2", 7));
    CHECK_EQ(v.counter, 2);
    // Served from memory, found by consumers' pulls, the failure shown.
    CHECK_EQ(get("G2").retry_max_times, 7);
    CHECK_EQ(ask<subscription_group_config>(
               table, find_subscription_group_request{"NEW"})
               .group_name,
             "NEW");
    auto d = dump();
    CHECK_NE(d["save_failing"].get<std::string>().find(".tmp"),
             std::string::npos);
    CHECK_GE(d["save_errors"], 2);
    auto on_disk = nlohmann::json::parse(test::read_file(path));
    CHECK_FALSE(on_disk["subscriptionGroupTable"].contains("G2"));
    // Retried on the clock: still failing, then landing once it can.
    advance_time(std::chrono::seconds{3}, std::chrono::milliseconds{500});
    CHECK_GE(dump()["save_errors"], 4);
    std::filesystem::remove_all(path + ".tmp");
    advance_time(std::chrono::seconds{2}, std::chrono::milliseconds{500});
    d = dump();
    CHECK_EQ(d["save_failing"], "");
    on_disk = nlohmann::json::parse(test::read_file(path));
    CHECK(on_disk["subscriptionGroupTable"].contains("G2"));
    CHECK(on_disk["subscriptionGroupTable"].contains("NEW"));
    // Once saved, no timer is left armed.
    auto errors = d["save_errors"].get<int64_t>();
    advance_time(std::chrono::seconds{5}, std::chrono::seconds{1});
    CHECK_EQ(dump()["save_errors"], errors);
  }

  TEST_CASE_FIXTURE(fixture, "a file that cannot be read refuses changes "
                             "and stays untouched") {
    // A folder where the file should be: it can be neither read nor moved
    // over by a save.
    std::filesystem::create_directories(path);
    start();
    auto err = ask_error<data_version>(table, caf::put_atom::value, group("G"));
    CHECK(err == errc::io_error);
    CHECK(std::filesystem::is_directory(path));
    CHECK_NE(dump()["save_blocked"], "");
    CHECK_EQ(list().version.counter, 0);
  }
}
