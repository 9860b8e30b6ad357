// rmq-admin against live NameServers: what each command prints, and its
// exit codes (0 ok, 1 unreachable node or error answer, 2 usage error).
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/system/namesrv_system_support.hpp"

using namespace rmq::test;

namespace {

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

} // namespace

TEST_SUITE("system.admin") {
  TEST_CASE("rmq-admin commands print what mqadmin prints") {
    auto ns1 = start_namesrv();
    auto ns2 = start_namesrv();
    auto broker = start_broker({ns1.addr(), ns2.addr()});
    auto n = ns1.addr();
    SUBCASE("topicList, topicsByCluster") {
      auto res = run_admin({"-n", n, "topicList"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "TopicA\nTopicB\n");
      res = run_admin(
        {"--namesrv", n, "topicsByCluster", "-c", "DefaultCluster"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "TopicA\nTopicB\n");
    }
    SUBCASE("clusterList") {
      auto res = run_admin({"--namesrv=" + n, "clusterList"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out,
               "#Cluster Name           #Broker Name            #BID  #Addr\n"
               "DefaultCluster          broker-a                0     "
               "127.0.0.1:10921\n");
    }
    SUBCASE("brokerMemberGroup and dump") {
      auto res = run_admin({"-n", n, "brokerMemberGroup", "-b", "broker-a",
                            "-c", "DefaultCluster"});
      CHECK_EQ(res.rc, 0);
      auto group = nlohmann::json::parse(res.out);
      CHECK_EQ(group["brokerAddrs"]["0"], "127.0.0.1:10921");
      res = run_admin(
        {"-n", n, "brokerMemberGroup", "-b", "ghost", "-c", "SomeCluster"});
      CHECK_EQ(res.rc, 0); // RocketMQ: an empty group, not an error
      group = nlohmann::json::parse(res.out);
      CHECK_EQ(group["cluster"], "SomeCluster");
      CHECK(group["brokerAddrs"].empty());
      res = run_admin({"-n", n, "dump"});
      CHECK_EQ(res.rc, 0);
      auto dump = nlohmann::json::parse(res.out);
      CHECK_EQ(dump["node"], "namesrv");
      CHECK(contains(res.out, "\n  \"actors\": [")); // pretty-printed
    }
    SUBCASE("wipeWritePerm and addWritePerm go to every NameServer") {
      auto list = ns1.addr() + ";" + ns2.addr();
      auto res = run_admin({"-n", list, "wipeWritePerm", "-b", "broker-a"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "wipe write perm of broker[broker-a] in name server["
                          + ns1.addr()
                          + "] OK, 2\nwipe write perm of "
                            "broker[broker-a] in name server["
                          + ns2.addr() + "] OK, 2\n");
      res = run_admin({"-n", ns2.addr(), "topicRoute", "-t", "TopicA"});
      CHECK_EQ(nlohmann::json::parse(res.out)["queueDatas"][0]["perm"], 4);
      res = run_admin({"-n", ns2.addr(), "addWritePerm", "-b", "broker-a"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "add write perm of broker[broker-a] in name server["
                          + ns2.addr() + "] OK, 2\n");
      res = run_admin({"-n", ns2.addr(), "topicRoute", "-t", "TopicA"});
      CHECK_EQ(nlohmann::json::parse(res.out)["queueDatas"][0]["perm"], 6);
    }
    SUBCASE("deleteTopic goes to every NameServer and is idempotent") {
      // Without -c: the NameServers only (with -c the cluster's brokers
      // first, tests/system/admin_broker_cli_test.cpp).
      auto list = ns1.addr() + ";" + ns2.addr();
      auto res = run_admin({"-n", list, "deleteTopic", "-t", "TopicB"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "delete topic [TopicB] from NameServer success.\n");
      CHECK_EQ(run_admin({"-n", n, "topicList"}).out, "TopicA\n");
      CHECK_EQ(run_admin({"-n", ns2.addr(), "topicList"}).out, "TopicA\n");
      res = run_admin({"-n", list, "deleteTopic", "-t", "TopicB"});
      CHECK_EQ(res.rc, 0); // already gone: still a success, as RocketMQ
      CHECK_EQ(res.out, "delete topic [TopicB] from NameServer success.\n");
    }
    SUBCASE("getNamesrvConfig and updateNamesrvConfig") {
      auto list = ns1.addr() + ";" + ns2.addr();
      auto res = run_admin({"-n", list, "updateNamesrvConfig", "-k",
                            "orderMessageEnable", "-v", "true"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "update name server config success![" + ns1.addr()
                          + ", " + ns2.addr()
                          + "]\norderMessageEnable : "
                            "true\n");
      res = run_admin({"-n", list, "getNamesrvConfig"});
      CHECK_EQ(res.rc, 0);
      for (auto& addr : {ns1.addr(), ns2.addr()})
        CHECK(contains(res.out, "============" + addr + "============\n"));
      CHECK(contains(res.out, "\norderMessageEnable" + std::string(50 - 18, ' ')
                                + "=  true\n"));
      // It took effect: routes now carry the topic's order config.
      run_admin({"-n", n, "updateKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k",
                 "TopicA", "-v", "broker-a:4"});
      res = run_admin({"-n", n, "topicRoute", "-t", "TopicA"});
      CHECK_EQ(nlohmann::json::parse(res.out)["orderTopicConf"], "broker-a:4");
      res = run_admin({"-n", n, "updateNamesrvConfig", "-k",
                       " orderMessageEnable ", "-v", " false"});
      CHECK_EQ(res.out, "update name server config success![" + n
                          + "]\norderMessageEnable : false\n");
      res = run_admin({"-n", n, "topicRoute", "-t", "TopicA"});
      CHECK_FALSE(nlohmann::json::parse(res.out).contains("orderTopicConf"));
      res = run_admin(
        {"-n", n, "updateNamesrvConfig", "-k", "kvConfigPath", "-v", "/tmp/x"});
      CHECK_EQ(res.rc, 1);
      CHECK(contains(res.out, "rmq-admin: updateNamesrvConfig: "
                              "rmq::no_permission: Can not update config in "
                              "black list."));
    }
    SUBCASE("KV config round trip") {
      auto res = run_admin(
        {"-n", n, "updateKvConfig", "-s", "NS", "-k", "k1", "-v", "v1"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "create or update kv config to namespace success.\n");
      res = run_admin({"-n", n, "getKvConfig", "-s", "NS", "-k", "k1"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "v1\n");
      res = run_admin({"-n", n, "getKvList", "-s", "NS"});
      CHECK_EQ(res.out, "k1=v1\n");
      res = run_admin({"-n", n, "deleteKvConfig", "-s", "NS", "-k", "k1"});
      CHECK_EQ(res.rc, 0);
      CHECK_EQ(res.out, "delete kv config from namespace success.\n");
      res = run_admin({"-n", n, "getKvConfig", "-s", "NS", "-k", "k1"});
      CHECK_EQ(res.rc, 1);
      CHECK(contains(res.out, "rmq-admin: getKvConfig: rmq::query_not_found"));
    }
  }

  TEST_CASE("rmq-admin exits 1 with a clear message on error answers") {
    auto ns = start_namesrv();
    auto res = run_admin({"-n", ns.addr(), "topicRoute", "-t", "Nope"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "rmq-admin: topicRoute: rmq::topic_not_exist: "));
    res = run_admin({"-n", ns.addr(), "topicRoute", "-t", "bad\ttopic"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "rmq-admin: topicRoute: rmq::invalid_parameter"));
  }

  TEST_CASE("rmq-admin exits 1 when the NameServer is unreachable") {
    auto addr = "127.0.0.1:" + std::to_string(unused_port());
    auto res = run_admin({"-n", addr, "--timeout-ms", "2000", "topicList"});
    CHECK_EQ(res.rc, 1);
    CHECK(
      contains(res.out, "rmq-admin: cannot connect to namesrv " + addr + ": "));
    res = run_admin(
      {"-n", addr, "--timeout-ms", "2000", "wipeWritePerm", "-b", "broker-a"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "wipe write perm of broker[broker-a] in name "
                            "server["
                              + addr + "] Failed\n"));
  }

  TEST_CASE("rmq-admin tries the next NameServer, as mqadmin does") {
    auto ns = start_namesrv();
    auto dead = "127.0.0.1:" + std::to_string(unused_port());
    auto res = run_admin(
      {"-n", dead + ";" + ns.addr(), "--timeout-ms", "2000", "clusterList"});
    CHECK_EQ(res.rc, 0);
    CHECK(contains(res.out, "#Cluster Name"));
    // None answers: each is named.
    auto dead2 = "127.0.0.1:" + std::to_string(unused_port());
    res = run_admin(
      {"-n", dead + ";" + dead2, "--timeout-ms", "2000", "clusterList"});
    CHECK_EQ(res.rc, 1);
    CHECK(contains(res.out, "cannot connect to namesrv " + dead + ": "));
    CHECK(contains(res.out, "cannot connect to namesrv " + dead2 + ": "));
  }

  TEST_CASE("rmq-admin exits 2 on usage errors") {
    auto n = "127.0.0.1:" + std::to_string(unused_port());
    for (auto args : std::vector<std::vector<std::string>>{
           {"-n", n, "noSuchCommand"},
           {"-n", n, "topicRoute"},
           {"-n", n, "topicRoute", "-t"},
           {"-n", n, "topicList", "-x", "1"},
           {"-n", n, "topicList", "-t", "TopicA"},
           {"-n", "nonsense", "topicList"},
           {"-n", n},
           {"-n", n, "--timeout-ms", "soon", "topicList"}}) {
      auto res = run_admin(args);
      CHECK_EQ(res.rc, 2);
      CHECK(contains(res.out, "usage: rmq-admin"));
    }
    auto help = run_admin({"--help"});
    CHECK_EQ(help.rc, 0);
    CHECK(contains(help.out, "topicRoute -t TOPIC"));
  }

} // TEST_SUITE
