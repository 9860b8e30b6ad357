// A master and its slave as real rmq-node processes (docs/replication.md,
// "Copying"): the slave (broker id 1, the same name) learns its master
// from the NameServer, copies its log and its topics and offsets and
// serves the same queues; a
// SIGKILLed master's messages stay readable on the slave, and the slave
// goes on copying once the master is back.
#include <chrono>
#include <csignal>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/consumer_process.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicHa";
constexpr int32_t queues = 4;

// rmq-admin sendMessage's output: a line per send with its status.
std::string send(const namesrv_process& ns, int n, const std::string& body) {
  auto res = run_admin({"-n", ns.addr(), "sendMessage", "-t", topic, "-p", body,
                        "-n", std::to_string(n)});
  REQUIRE_MESSAGE(res.rc == 0, res.out);
  return res.out;
}

// The msgIds of sendMessage's SEND_OK lines (broker, queue, status,
// msgId, ...).
std::vector<std::string> acked_ids(const std::string& out) {
  std::vector<std::string> ids;
  std::istringstream lines{out};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in{line};
    std::string broker, queue, status, id;
    if (in >> broker >> queue >> status >> id && status == "SEND_OK")
      ids.push_back(id);
  }
  return ids;
}

// A NameServer, a master and its slave (broker id 1), both connected.
struct group {
  temp_dir dir;
  namesrv_process ns = start_namesrv();
  broker_launch how_m = one_broker(ns, dir.path() + "/master");
  broker_process master = start_broker_node(how_m);
  broker_launch how_s = slave_of(ns, dir.path() + "/slave");
  broker_process slave = start_broker_node(how_s);
  remote_client client;
  broker_actor m_front = connect_broker(client, master.port);
  broker_actor s_front = connect_broker(client, slave.port);

  static broker_launch slave_of(const namesrv_process& ns,
                                const std::string& store) {
    auto how = one_broker(ns, store);
    how.extra.push_back("--broker-id=1");
    return how;
  }
};

// A producer streams to a master (SYNC_MASTER + SYNC_FLUSH, or
// ASYNC_MASTER) and its slave while a push consumer process reads; the
// master is SIGKILLed after 300 SEND_OKs and restarted later.
void stream_through_a_master_kill(bool sync) {
  temp_dir dir;
  auto ns = start_namesrv();
  auto how_m = one_broker(ns, dir.path() + "/master");
  how_m.flush = sync ? "SYNC_FLUSH" : "ASYNC_FLUSH";
  how_m.extra.push_back(sync ? "--broker-role=SYNC_MASTER"
                             : "--broker-role=ASYNC_MASTER");
  auto master = start_broker_node(how_m);
  auto how_s = one_broker(ns, dir.path() + "/slave");
  how_s.extra.push_back("--broker-id=1");
  auto slave = start_broker_node(how_s);
  remote_client client;
  auto m_front = connect_broker(client, master.port);
  auto s_front = connect_broker(client, slave.port);
  create_topic(client, m_front, topic, queues);
  // SEND_OK once the slave has the topic and asks.
  std::set<std::string> acked;
  REQUIRE(wait_until(
    [&] {
      for (auto& id : acked_ids(send(ns, 1, "probe")))
        acked.insert(id);
      return !acked.empty();
    },
    20s));
  consumer_proc consumer{
    {bin_dir() + "/push_consumer_example", "--namesrv=" + ns.addr(),
     "--topic=" + topic, "--group=GroupStream", "--print=ids", "--from=first",
     "--poll-namesrv-ms=1000", "--rebalance-interval-ms=1000"}};
  REQUIRE(consumer.started());
  // A producer streams; the master dies after its 300th SEND_OK.
  child_process producer{{bin_dir() + "/rmq-admin", "-n", ns.addr(),
                          "sendMessage", "-t", topic, "-p", "stream", "-n",
                          "3000"},
                         true};
  std::string line;
  size_t before_kill = 0;
  while (before_kill < 300 && producer.read_line(line, 30s))
    for (auto& id : acked_ids(line)) {
      acked.insert(id);
      ++before_kill;
    }
  REQUIRE_EQ(before_kill, 300u);
  master.proc->signal(SIGKILL);
  REQUIRE_EQ(master.proc->wait(10s), 128 + SIGKILL);
  // Its answers that were on their way still count; the rest fail.
  while (producer.read_line(line, 30s))
    for (auto& id : acked_ids(line))
      acked.insert(id);
  auto consumed_all = [&](const std::set<std::string>& ids) {
    std::set<std::string> got;
    for (auto& c : consumer.lines())
      got.insert(c.msg_id);
    for (auto& id : ids)
      if (got.count(id) == 0)
        return false;
    return true;
  };
  if (sync) {
    // Every acknowledged message is on the slave, and the consumer reads
    // it there.
    CHECK(wait_until([&] { return consumed_all(acked); }, 60s));
  } else {
    // What the slave had not copied yet is its lag, said by haStatus;
    // its copy is whole up to there (no corruption).
    auto hs = run_admin({"-n", ns.addr(), "haStatus", "-b", slave.addr()});
    auto field = [&](const std::string& key) -> int64_t {
      auto at = hs.out.find(key + "\t");
      return at == std::string::npos
               ? -1
               : std::stoll(hs.out.substr(at + key.size() + 1));
    };
    auto copied = field("#CommitLogMaxOffset");
    auto master_end = field("#MasterFlushOffset");
    CHECK_GT(copied, 0);
    CHECK_LE(copied, master_end);
    MESSAGE("ASYNC_MASTER: the slave had " << copied << " of " << master_end
                                           << " bytes at the kill");
  }
  // The master is back: the slave copies what the master stored beyond
  // it, sends are acknowledged again and the consumer reads them there.
  restart_broker_node(master, how_m);
  m_front = connect_broker(client, master.port);
  std::set<std::string> after;
  REQUIRE(wait_until(
    [&] {
      for (auto& id : acked_ids(send(ns, 1, "after")))
        after.insert(id);
      return !after.empty();
    },
    30s));
  for (auto& id : acked_ids(send(ns, 20, "after")))
    after.insert(id);
  CHECK_GE(after.size(), 21u);
  CHECK(wait_until([&] { return consumed_all(after); }, 60s));
  // Under ASYNC_MASTER the rest of what was acknowledged comes from the
  // master's own disk.
  CHECK(wait_until([&] { return consumed_all(acked); }, 60s));
  CHECK(wait_until(
    [&] {
      return stored_count(client, s_front, topic, queues)
             == stored_count(client, m_front, topic, queues);
    },
    30s));
  // It kept its place across both moves: nothing read twice.
  auto lines = consumer.lines();
  MESSAGE(acked.size() << " acknowledged before and around the kill, "
                       << after.size() << " after, " << lines.size()
                       << " consumed");
  std::set<std::string> unique;
  for (auto& c : lines)
    unique.insert(c.msg_id);
  CHECK_EQ(unique.size(), lines.size());
}

} // namespace

TEST_SUITE("system.replication") {
  TEST_CASE_FIXTURE(group, "a slave copies its master's log, serves it "
                           "while the master is down, and follows it again") {
    // Created on the master only: the slave takes its topics from there.
    create_topic(client, m_front, topic, queues);
    send(ns, 100, "first");
    REQUIRE(wait_until(
      [&] { return stored_count(client, s_front, topic, queues) == 100; },
      20s));
    auto slave_has_topic = [&] {
      auto all = client.ask<topic_config_set>(s_front,
                                              get_all_topic_config_request{});
      if (!all)
        return false;
      for (auto& t : all->topics)
        if (t.topic_name == topic)
          return true;
      return false;
    };
    REQUIRE(wait_until(slave_has_topic, 10s));
    // mqadmin haStatus, both sides.
    auto ha = run_admin({"-n", ns.addr(), "haStatus", "-b", master.addr()});
    REQUIRE_MESSAGE(ha.rc == 0, ha.out);
    CHECK_NE(ha.out.find("#SlaveNum\t1"), std::string::npos);
    CHECK_NE(ha.out.find("#InSyncSlaveNum\t1"), std::string::npos);
    CHECK_NE(ha.out.find(slave.addr()), std::string::npos);
    auto hs = run_admin({"-n", ns.addr(), "haStatus", "-b", slave.addr()});
    REQUIRE_MESSAGE(hs.rc == 0, hs.out);
    CHECK_NE(hs.out.find("#MasterAddr\t" + master.addr()), std::string::npos);
    // brokerStatus says the same in RocketMQ 5's HARuntimeInfo names.
    auto ms = run_admin({"-n", ns.addr(), "brokerStatus", "-b", master.addr()});
    CHECK_EQ(admin_status_value(ms.out, "haSlaveNums"), "1");
    CHECK_EQ(admin_status_value(ms.out, "inSyncSlaveNums"), "1");
    auto ss = run_admin({"-n", ns.addr(), "brokerStatus", "-b", slave.addr()});
    CHECK_EQ(admin_status_value(ss.out, "masterAddr"), master.addr());
    CHECK_NE(admin_status_value(ss.out, "haSlaveDiff"), "");
    for (int32_t q = 0; q < queues; ++q) {
      REQUIRE(wait_readable(client, s_front, topic, q,
                            stored_count(client, m_front, topic, q + 1)
                              - stored_count(client, m_front, topic, q)));
      CHECK_EQ(pull_all(client, s_front, topic, q),
               pull_all(client, m_front, topic, q));
    }
    // A group's offset committed on the master reaches the slave.
    auto ok = client.ask<caf::ok_atom>(
      m_front, update_offset_request{"GroupHa", topic, 0, 7});
    REQUIRE_MESSAGE(ok, describe(ok.error()));
    auto slave_offset = [&] {
      auto got = client.ask<int64_t>(
        s_front, query_offset_request{"GroupHa", topic, 0, false});
      return got ? *got : int64_t{-1};
    };
    CHECK(wait_until([&] { return slave_offset() == 7; }, 10s));
    // The master dies; what it acknowledged is on the slave.
    master.proc->signal(SIGKILL);
    REQUIRE_EQ(master.proc->wait(10s), 128 + SIGKILL);
    int64_t on_slave = 0;
    for (int32_t q = 0; q < queues; ++q)
      on_slave
        += static_cast<int64_t>(pull_all(client, s_front, topic, q).size());
    CHECK_EQ(on_slave, 100);
    // A consumer moved to the slave commits there.
    ok = client.ask<caf::ok_atom>(s_front, update_offset_request{"GroupHa",
                                                                 topic, 0, 20});
    REQUIRE_MESSAGE(ok, describe(ok.error()));
    // Back, it takes sends again and the slave copies them.
    restart_broker_node(master, how_m);
    m_front = connect_broker(client, master.port);
    send(ns, 50, "second");
    REQUIRE(wait_until(
      [&] { return stored_count(client, s_front, topic, queues) == 150; },
      30s));
    CHECK_EQ(stored_count(client, m_front, topic, queues), 150);
    // The master's older offset (7) did not take the slave's back.
    CHECK_EQ(slave_offset(), 20);
  }

  TEST_CASE("SYNC_MASTER + SYNC_FLUSH master SIGKILLed mid-stream: every "
            "SEND_OK reaches a push consumer, which reads on at the slave and "
            "at the master once it is back") {
    stream_through_a_master_kill(true);
  }

  TEST_CASE("ASYNC_MASTER master SIGKILLed mid-stream: the slave's lag is "
            "reported, and every SEND_OK is read once the master is back") {
    stream_through_a_master_kill(false);
  }

  TEST_CASE("SYNC_MASTER says SLAVE_NOT_AVAILABLE without a slave and "
            "SEND_OK once the slave has the message") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how_m = one_broker(ns, dir.path() + "/master");
    how_m.extra.push_back("--broker-role=SYNC_MASTER");
    auto master = start_broker_node(how_m);
    remote_client client;
    auto m_front = connect_broker(client, master.port);
    create_topic(client, m_front, topic, queues);
    auto alone = send(ns, 4, "alone");
    CHECK_EQ(count_of(alone, "SLAVE_NOT_AVAILABLE"), 4u);
    // Stored all the same (dispatched into the queues just after).
    CHECK(wait_until(
      [&] { return stored_count(client, m_front, topic, queues) == 4; }, 10s));
    auto how_s = one_broker(ns, dir.path() + "/slave");
    how_s.extra.push_back("--broker-id=1");
    auto slave = start_broker_node(how_s);
    auto s_front = connect_broker(client, slave.port);
    REQUIRE(wait_until(
      [&] { return stored_count(client, s_front, topic, queues) == 4; }, 20s));
    auto paired = send(ns, 10, "paired");
    CHECK_EQ(count_of(paired, "SEND_OK"), 10u);
    // Each was in the slave's log before its SEND_OK (the slave's queues
    // follow its log; the virtual-clock test checks the log itself).
    CHECK(wait_until(
      [&] { return stored_count(client, s_front, topic, queues) == 14; }, 5s));
  }

  TEST_CASE_FIXTURE(group, "manual failover: a slave promoted once its "
                           "master is gone; the old master, back, is kept out "
                           "until demoted, then follows") {
    create_topic(client, m_front, topic, queues);
    send(ns, 20, "first");
    REQUIRE(wait_until(
      [&] { return stored_count(client, s_front, topic, queues) == 20; }, 20s));
    // Refused while the slave copies from a live master.
    auto refused = run_admin({"-n", ns.addr(), "promote", "-b", slave.addr()});
    CHECK_NE(refused.rc, 0);
    CHECK_NE(refused.out.find("is alive"), std::string::npos);
    master.proc->signal(SIGKILL);
    REQUIRE_EQ(master.proc->wait(10s), 128 + SIGKILL);
    // The slave sees its master gone within a moment; then promoted, it
    // restarts as the group's master on its ports.
    REQUIRE(wait_until(
      [&] {
        auto res = run_admin({"-n", ns.addr(), "promote", "-b", slave.addr()});
        return res.rc == 0
               && res.out.find("restarting as broker id 0")
                    != std::string::npos;
      },
      10s));
    REQUIRE(wait_until(
      [&] {
        auto out = run_admin({"-n", ns.addr(), "clusterList"}).out;
        return out.find("0     " + slave.addr()) != std::string::npos;
      },
      20s));
    s_front = connect_broker(client, slave.port);
    // Its term began (the master's first, then its own) and the role file
    // keeps the role without the new-term mark.
    auto terms
      = nlohmann::json::parse(read_file(dir.path() + "/slave/epochFile.json"));
    CHECK_EQ(terms["epochs"].size(), 2u);
    auto role = nlohmann::json::parse(
      read_file(dir.path() + "/slave/config/brokerRole.json"));
    CHECK_EQ(role["brokerId"], 0);
    CHECK_FALSE(role.contains("newTerm"));
    auto after = send(ns, 5, "after");
    CHECK_EQ(count_of(after, "SEND_OK"), 5u);
    // The old master comes back with its old flags: the NameServer keeps
    // the group with the newer term.
    auto how_m2 = how_m;
    how_m2.wait_registered = false;
    how_m2.log_to_stdout = true;
    restart_broker_node(master, how_m2);
    CHECK(master.said("with a newer state version", 10s));
    auto cluster = run_admin({"-n", ns.addr(), "clusterList"}).out;
    CHECK_NE(cluster.find("0     " + slave.addr()), std::string::npos);
    CHECK_EQ(cluster.find("0     " + master.addr()), std::string::npos);
    // Demoted, it follows the new master: its log becomes the new one.
    auto demoted
      = run_admin({"-n", ns.addr(), "demote", "-b", master.addr(), "-i", "1"});
    REQUIRE_MESSAGE(demoted.rc == 0, demoted.out);
    CHECK(wait_until(
      [&] {
        remote_client c2;
        auto front = c2.try_connect_to<broker_actor>(master.port);
        return front
               && stored_count(c2, *front, topic, queues)
                    == stored_count(client, s_front, topic, queues);
      },
      30s));
    CHECK_EQ(stored_count(client, s_front, topic, queues), 25);
  }

  TEST_CASE("a broker on all interfaces hands out its brokerIP1, and is "
            "refused without one") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto how = one_broker(ns, dir.path() + "/b");
    how.host = "0.0.0.0";
    how.extra = {"--broker-ip1=127.0.0.1", "--broker-ip2=127.0.0.1"};
    auto b = start_broker_node(how);
    auto out = run_admin({"-n", ns.addr(), "clusterList"}).out;
    CHECK_NE(out.find("127.0.0.1:" + std::to_string(b.port)),
             std::string::npos);
    CHECK_EQ(out.find("0.0.0.0"), std::string::npos);
    auto bad = one_broker(ns, dir.path() + "/c");
    bad.host = "0.0.0.0";
    child_process refused{broker_argv(bad, 0)};
    CHECK_NE(refused.wait(20s), 0);
  }
}
