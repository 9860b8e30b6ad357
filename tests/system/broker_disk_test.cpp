// A disk over the broker's limits, said plainly: sends refused with a
// remark naming the disk and its use, a WARN on each change of state and
// the refusals counted in brokerStatus; above the clean-forcibly ratio the
// oldest segments go before their retention (a WARN saying so, and one
// naming the group that had not consumed them), or, with
// --clean-file-forcibly-enable=false, stay. The ratios are set just below
// the test disk's real use, so nothing has to be filled.
#include <chrono>
#include <optional>
#include <string>

#include <sys/statvfs.h>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// The use of the file system holding `dir`, 0..1 (as the store reads it),
// or nothing when a ratio below it would not be one.
std::optional<double> disk_use(const std::string& dir) {
  struct statvfs st {};
  REQUIRE_EQ(statvfs(dir.c_str(), &st), 0);
  auto use
    = 1.0 - static_cast<double>(st.f_bavail) / static_cast<double>(st.f_blocks);
  if (use < 0.05) {
    MESSAGE("skipped: the test disk is " << use << " used, no ratio fits");
    return std::nullopt;
  }
  return use;
}

std::string ratio_below(double use) {
  return std::to_string(use - 0.02);
}

} // namespace

TEST_SUITE("system.broker.disk") {
  TEST_CASE("a disk above the warning level refuses sends and says why") {
    temp_dir dir;
    auto use = disk_use(dir.path());
    if (!use)
      return;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/store");
    how.extra = {"--disk-space-warning-level-ratio=" + ratio_below(*use)};
    how.log_to_stdout = true;
    auto broker = start_broker_node(how);
    CHECK(broker.said("above diskSpaceWarningLevelRatio"));
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, "TopicFull", 1);
    auto sent = send_plain(client, front, "TopicFull", "x");
    REQUIRE_FALSE(sent);
    CHECK(sent.error() == errc::service_not_available);
    auto why = describe(sent.error());
    CHECK_NE(why.find("the disk of " + how.store_dir), std::string::npos);
    CHECK_NE(why.find("% used, above diskSpaceWarningLevelRatio"),
             std::string::npos);
    CHECK_EQ(broker_status(client, front, "sendRefusedDiskFull"), "1");
    CHECK_EQ(broker_status(client, front, "sendRefused"), "1");
  }

  TEST_CASE("above the clean-forcibly ratio the oldest segments go, said "
            "with the group that lost messages; or stay when told") {
    temp_dir dir;
    auto use = disk_use(dir.path());
    if (!use)
      return;
    auto run = [&](bool forcibly) {
      auto ns = start_namesrv();
      auto how = one_broker(ns, dir.path() + (forcibly ? "/a" : "/b"));
      how.extra = {"--disk-space-warning-level-ratio=1",
                   "--disk-space-clean-forcibly-ratio=" + ratio_below(*use),
                   std::string{"--clean-file-forcibly-enable="}
                     + (forcibly ? "true" : "false"),
                   "--mapped-file-size-commit-log=65536",
                   "--max-message-size=16384"};
      how.log_to_stdout = true;
      auto broker = start_broker_node(how);
      CHECK(broker.said("above diskSpaceCleanForciblyRatio"));
      remote_client client;
      auto front = connect_broker(client, broker.port);
      create_topic(client, front, "TopicOld", 1);
      // Four 64 KiB segments' worth.
      for (int i = 0; i < 240; ++i) {
        auto sent
          = send_plain(client, front, "TopicOld",
                       std::string(1024, 'a' + static_cast<char>(i % 26)));
        REQUIRE(sent);
      }
      // The cleaning runs every 10 s.
      bool deleted = wait_until(
        [&] {
          return broker_status(client, front, "commitLogMinOffset") != "0";
        },
        forcibly ? 30s : 15s, 200ms);
      CHECK_EQ(deleted, forcibly);
      if (!forcibly)
        return;
      CHECK(broker.said("before its retention, consumed or not"));
      CHECK_EQ(broker_status(client, front, "commitLogForcedDeletions") != "0",
               true);
      // The group that never consumed them hears how many it lost.
      pull_message_request req;
      req.consumer_group = "GroupLate";
      req.topic = "TopicOld";
      bool moved = wait_until(
        [&] {
          auto got = client.ask<pull_message_result>(front, req);
          return got
                 && got->status
                      == static_cast<uint8_t>(pull_status::offset_illegal)
                 && got->min_offset > 0;
        },
        10s, 200ms);
      CHECK(moved);
      CHECK(broker.said("group GroupLate pulls TopicOld/0 at 0"));
    };
    SUBCASE("deleted") {
      run(true);
    }
    SUBCASE("kept with --clean-file-forcibly-enable=false") {
      run(false);
    }
  }
}
