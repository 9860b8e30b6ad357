// A NameServer, a SYNC_MASTER, its slave and a client, each on its own
// "host" (a network namespace; tests/support/net_hosts), with real links
// cut and restored while the client works (docs/replication.md):
// - the master's link cut mid-stream: sends get no SEND_OK, the group's
//   consumer reads on at the slave;
// - the slave's link cut: the master stores sends but answers none
//   SEND_OK (FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE), and the slave
//   catches up once back;
// - the master cut again with a tail of its own, the slave promoted: the
//   old master, back, is kept out, then demoted: it cuts its tail and
//   follows, so both logs end equal.
// Root only (namespaces); skipped with the reason elsewhere.
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/child_process.hpp"
#include "tests/support/net_hosts.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicHosts";
enum host { ns_host, master_host, slave_host, client_host };

// The msgIds consumeMessage printed.
std::set<std::string> ids_of(const std::string& out) {
  std::set<std::string> ids;
  for (auto at = out.find("msgId="); at != std::string::npos;
       at = out.find("msgId=", at + 1))
    ids.insert(out.substr(at + 6, out.find(' ', at) - at - 6));
  return ids;
}

struct cluster {
  net_hosts hosts{4};
  temp_dir dir;
  namesrv_process ns;
  broker_launch how_m;
  broker_launch how_s;
  broker_process master;
  broker_process slave;

  cluster() {
    namesrv_launch nl;
    nl.host = hosts.ip(ns_host);
    nl.prefix = hosts.on(ns_host);
    ns = start_namesrv(nl);
    how_m = node(master_host, "/master");
    how_m.extra.push_back("--broker-role=SYNC_MASTER");
    // FLUSH_SLAVE_TIMEOUT after 2 s rather than 5.
    how_m.extra.push_back("--sync-flush-timeout-ms=2000");
    how_s = node(slave_host, "/slave");
    how_s.extra.push_back("--broker-id=1");
    master = start_broker_node(how_m);
    slave = start_broker_node(how_s);
  }

  broker_launch node(host h, const std::string& store) {
    auto how = one_broker(ns, dir.path() + store);
    how.host = hosts.ip(h);
    how.prefix = hosts.on(h);
    return how;
  }

  // rmq-admin on the client's host, its stderr in the output.
  admin_run admin(std::vector<std::string> args) {
    std::string cmd = "exec";
    for (auto& a : hosts.on(client_host))
      cmd += " '" + a + "'";
    cmd += " '" + bin_dir() + "/rmq-admin' -n '" + ns.addr() + "'";
    for (auto& a : args)
      cmd += " '" + a + "'";
    cmd += " 2>&1";
    admin_run res;
    res.rc = run_command({"/bin/sh", "-c", cmd}, res.out, 120s);
    return res;
  }

  std::string send(int n, const std::string& body) {
    return admin(
             {"sendMessage", "-t", topic, "-p", body, "-n", std::to_string(n)})
      .out;
  }

  // Consumes until `n` messages came or `timeout` passed (each run of
  // consumeMessage ends after 3 s without a message, e.g. while its
  // rebalance waits for an unreachable master).
  int consume(const std::string& group, int n,
              std::chrono::seconds timeout = 60s) {
    int got = 0;
    wait_until(
      [&] {
        auto res = admin({"consumeMessage", "-t", topic, "-g", group, "-c",
                          std::to_string(n - got), "-f", "first"});
        got += static_cast<int>(count_of(res.out, "msgId="));
        return got >= n;
      },
      timeout);
    return got;
  }

  int64_t log_end(const broker_process& b) {
    auto res = admin({"brokerStatus", "-b", b.addr()});
    auto v = admin_status_value(res.out, "commitLogMaxOffset");
    return v.empty() ? -1 : std::stoll(v);
  }

  // The sum of the group's offsets in the slave's offsets file.
  int64_t slave_offsets(const std::string& group) {
    std::ifstream in{dir.path() + "/slave/config/consumerOffset.json"};
    auto j = nlohmann::json::parse(in, nullptr, false);
    int64_t sum = 0;
    if (j.is_object() && j.contains("offsetTable")) {
      auto key = topic + "@" + group;
      if (j["offsetTable"].contains(key))
        for (auto& [q, off] : j["offsetTable"][key].items())
          sum += off.get<int64_t>();
    }
    return sum;
  }

  bool same_log_end() {
    auto m = log_end(master);
    return m > 0 && m == log_end(slave);
  }
};

} // namespace

TEST_SUITE("system.replication.hosts") {
  TEST_CASE("links cut and restored between hosts: no SEND_OK without the "
            "slave's copy, consumers move to the slave, a promotion and the "
            "old master's return without divergence") {
    if (auto why = net_hosts::unavailable(); !why.empty()) {
      MESSAGE("skipped: " << why);
      return;
    }
    cluster c;
    auto t0 = std::chrono::steady_clock::now();
    // Where the time goes, for whoever reads a slow run.
    auto at = [&](const std::string& what) {
      auto s = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::steady_clock::now() - t0)
                 .count();
      MESSAGE(what << " at " << s << " s");
    };
    auto made = c.admin({"updateTopic", "-b", c.master.addr(), "-t", topic,
                         "-r", "4", "-w", "4"});
    REQUIRE_MESSAGE(made.rc == 0, made.out);
    // The slave takes the topic from its master within a second or so.
    REQUIRE(wait_until(
      [&] { return count_of(c.send(1, "probe"), "SEND_OK") == 1u; }, 20s));
    CHECK_EQ(count_of(c.send(19, "first"), "SEND_OK"), 19u);
    REQUIRE(wait_until([&] { return c.same_log_end(); }, 20s));
    auto before = c.admin({"consumeMessage", "-t", topic, "-g", "GroupHosts",
                           "-c", "10", "-f", "first"});
    auto first_ids = ids_of(before.out);
    REQUIRE_MESSAGE(first_ids.size() == 10, before.out);
    // The group's place reaches the slave (its offsets file), so that it
    // keeps its place when it moves there.
    REQUIRE(
      wait_until([&] { return c.slave_offsets("GroupHosts") == 10; }, 20s));

    at("master cut");
    // 1. The master's link is cut mid-stream.
    c.hosts.cut(master_host);
    auto cut = c.send(2, "cut");
    CHECK_EQ(count_of(cut, "SEND_OK"), 0u);
    // The group's consumer reads the rest at the slave, from its place.
    auto rest = c.admin(
      {"consumeMessage", "-t", topic, "-g", "GroupHosts", "-c", "10"});
    auto rest_ids = ids_of(rest.out);
    CHECK_MESSAGE(rest_ids.size() == 10, rest.out);
    for (auto& id : rest_ids)
      CHECK_MESSAGE(first_ids.count(id) == 0, id << " read twice");
    c.hosts.restore(master_host);

    at("slave cut");
    // 2. The slave's link is cut: stored on the master, never SEND_OK.
    REQUIRE(wait_until([&] { return c.same_log_end(); }, 30s));
    c.hosts.cut(slave_host);
    auto alone = c.send(3, "alone");
    CHECK_EQ(count_of(alone, "SEND_OK"), 0u);
    CHECK_EQ(count_of(alone, "FLUSH_SLAVE_TIMEOUT")
               + count_of(alone, "SLAVE_NOT_AVAILABLE"),
             3u);
    c.hosts.restore(slave_host);
    // Back, the slave catches up and sends are acknowledged again.
    CHECK(wait_until([&] { return c.same_log_end(); }, 30s));
    CHECK(wait_until(
      [&] { return count_of(c.send(1, "again"), "SEND_OK") == 1u; }, 30s));

    at("promotion");
    // 3. The slave is cut once more while the master stores a tail of its
    // own; then the master is cut and the slave, back, promoted.
    c.hosts.cut(slave_host);
    CHECK_EQ(count_of(c.send(2, "tail"), "SEND_OK"), 0u);
    auto tail_end = c.log_end(c.master);
    c.hosts.cut(master_host);
    c.hosts.restore(slave_host);
    REQUIRE(wait_until(
      [&] {
        auto res = c.admin({"promote", "-b", c.slave.addr()});
        return res.rc == 0
               && res.out.find("restarting as broker id 0")
                    != std::string::npos;
      },
      60s));
    REQUIRE(wait_until(
      [&] { return count_of(c.send(1, "new term"), "SEND_OK") == 1u; }, 60s));
    CHECK_EQ(count_of(c.send(4, "new term"), "SEND_OK"), 4u);
    auto new_end = c.log_end(c.slave);

    at("old master back");
    // 4. The old master's link is back: it still runs as a master in its
    // old term, and the NameServer keeps it out.
    c.hosts.restore(master_host);
    CHECK_EQ(c.log_end(c.master), tail_end);
    auto list = c.admin({"clusterList"}).out;
    CHECK_NE(list.find("0     " + c.slave.addr()), std::string::npos);
    CHECK_EQ(list.find("0     " + c.master.addr()), std::string::npos);
    // Demoted, it cuts its tail and copies the new master's term.
    auto demoted = c.admin({"demote", "-b", c.master.addr(), "-i", "1"});
    REQUIRE_MESSAGE(demoted.rc == 0, demoted.out);
    CHECK(wait_until(
      [&] {
        auto m = c.log_end(c.master);
        return m >= 0 && m == c.log_end(c.slave);
      },
      60s));
    CHECK_EQ(c.log_end(c.slave), new_end);
    at("read back");
    // A new group reads every acknowledged message, and nothing of the
    // cut tail: "cut" never reached the master, "tail" was cut.
    auto all = c.admin({"consumeMessage", "-t", topic, "-g", "GroupAfter", "-c",
                        "1000", "-f", "first"})
                 .out;
    CHECK_EQ(count_of(all, "body=first\n"), 19u);
    CHECK_EQ(count_of(all, "body=alone\n"), 3u);
    CHECK_EQ(count_of(all, "body=new term\n"), 5u);
    CHECK_EQ(count_of(all, "body=cut\n"), 0u);
    CHECK_EQ(count_of(all, "body=tail\n"), 0u);
  }
}
