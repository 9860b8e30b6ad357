// A broker's config files, damaged or unwritable, with a real process: a
// truncated subscriptionGroup.json is kept aside, said at ERROR with its
// consequence and shown in brokerStatus, and groups consume again at once;
// a save that fails keeps the change served, shows the failure in
// brokerStatus and lands once it can.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

TEST_SUITE("system.broker.config_files") {
  TEST_CASE("a truncated subscriptionGroup.json is kept aside and groups "
            "consume at once") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    auto broker = start_broker_node(how);
    {
      remote_client client;
      auto front = connect_broker(client, broker.port);
      create_topic(client, front, "TopicKept", 1);
      REQUIRE(send_plain(client, front, "TopicKept", "before"));
      update_sub_group_request req;
      req.config.group_name = "GroupOld";
      auto v = client.ask<data_version>(front, req);
      REQUIRE_MESSAGE(v, describe(v.error()));
    }
    broker.proc->signal(SIGTERM);
    REQUIRE_EQ(broker.proc->wait(), 0);
    auto groups = how.store_dir + "/config/subscriptionGroup.json";
    auto text = read_file(groups);
    REQUIRE_GT(text.size(), 20u);
    write_file(groups, text.substr(0, text.size() / 2));
    how.log_to_stdout = true;
    restart_broker_node(broker, how);
    CHECK(broker.said("kept aside as " + groups + ".corrupt.1"));
    CHECK(std::filesystem::exists(groups + ".corrupt.1"));
    remote_client client;
    auto front = connect_broker(client, broker.port);
    CHECK_EQ(broker_status(client, front, "configCorruptCopies"),
             groups + ".corrupt.1");
    // Groups are created and saved again, and consume.
    update_sub_group_request req;
    req.config.group_name = "GroupNew";
    auto v = client.ask<data_version>(front, req);
    REQUIRE_MESSAGE(v, describe(v.error()));
    CHECK_NE(read_file(groups).find("GroupNew"), std::string::npos);
    CHECK_EQ(pull_all(client, front, "TopicKept", 0),
             std::vector<std::string>{"before"});
  }

  TEST_CASE("a failing save is served from memory, shown, and retried") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    auto topics = how.store_dir + "/config/topics.json";
    // A folder where the temp file goes: every save fails (as root a
    // read-only mode would not stop it).
    std::filesystem::create_directories(topics + ".tmp");
    create_topic(client, front, "TopicNew", 1);
    auto sent = send_plain(client, front, "TopicNew", "x");
    REQUIRE_MESSAGE(sent, describe(sent.error()));
    CHECK_EQ(sent->status, static_cast<uint8_t>(send_status::send_ok));
    auto failing = broker_status(client, front, "configSaveFailing");
    CHECK_NE(failing.find(topics), std::string::npos);
    std::filesystem::remove_all(topics + ".tmp");
    CHECK(wait_until(
      [&] {
        return broker_status(client, front, "configSaveFailing") == "none";
      },
      10s, 100ms));
    CHECK_NE(read_file(topics).find("TopicNew"), std::string::npos);
  }
}
