// Route bodies against the JSON a Java NameServer writes
// (shared/reference/rocketmq-remoting.md, GET_ROUTEINFO_BY_TOPIC): the
// same text, but for the broker id quoted as standard JSON wants.
#include "runtime/remoting/namesrv_body.hpp"

#include <doctest/doctest.h>

using namespace rmq;

TEST_SUITE("runtime.remoting_routes") {
  TEST_CASE("a route is written as a 4.9.4+ NameServer writes it") {
    topic_route_data route;
    queue_data qd;
    qd.broker_name = "broker-a";
    qd.read_queue_nums = qd.write_queue_nums = 4;
    qd.perm = 6;
    route.queue_datas.push_back(qd);
    broker_data bd;
    bd.cluster = "DefaultCluster";
    bd.broker_name = "broker-a";
    bd.broker_addrs[0] = "127.0.0.1:20911";
    route.broker_datas.push_back(bd);
    CHECK_EQ(remoting::to_json(route).dump(),
             R"({"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:20911"},)"
             R"("brokerName":"broker-a","cluster":"DefaultCluster",)"
             R"("enableActingMaster":false}],"filterServerTable":{},)"
             R"("queueDatas":[{"brokerName":"broker-a","perm":6,)"
             R"("readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]})");
    route.order_topic_conf = "broker-a:4";
    route.broker_datas[0].broker_addrs[1] = "127.0.0.1:20921";
    auto j = remoting::to_json(route);
    CHECK_EQ(j["orderTopicConf"], "broker-a:4");
    CHECK_EQ(j["brokerDatas"][0]["brokerAddrs"]["1"], "127.0.0.1:20921");
  }

  TEST_CASE("a route body read back; what is no route is refused") {
    topic_route_data route;
    REQUIRE(remoting::from_json(
      R"({"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":2,)"
      R"("writeQueueNums":3,"topicSynFlag":1}]})",
      route));
    REQUIRE_EQ(route.queue_datas.size(), 1u);
    CHECK_EQ(route.queue_datas[0].broker_name, "b");
    CHECK_EQ(route.queue_datas[0].write_queue_nums, 3);
    CHECK_EQ(route.queue_datas[0].topic_sys_flag, 1);
    topic_route_data bad;
    CHECK_FALSE(remoting::from_json("{", bad));
    CHECK_FALSE(remoting::from_json("[]", bad));
    CHECK_FALSE(remoting::from_json(R"({"queueDatas":{}})", bad));
    CHECK_FALSE(remoting::from_json(R"({"queueDatas":[1]})", bad));
    CHECK_FALSE(remoting::from_json(R"({"queueDatas":[{"perm":"six"}]})", bad));
  }

  TEST_CASE("cluster info, topic lists, KV tables, member groups") {
    cluster_info info;
    broker_data bd;
    bd.cluster = "C";
    bd.broker_name = "b";
    bd.broker_addrs[0] = "h:1";
    info.broker_addr_table["b"] = bd;
    info.cluster_addr_table["C"] = {"b"};
    CHECK_EQ(remoting::to_json(info).dump(),
             R"({"brokerAddrTable":{"b":{"brokerAddrs":{"0":"h:1"},)"
             R"("brokerName":"b","cluster":"C","enableActingMaster":false}},)"
             R"("clusterAddrTable":{"C":["b"]}})");
    CHECK_EQ(remoting::topic_list_json({"A", "B"}).dump(),
             R"({"topicList":["A","B"]})");
    CHECK_EQ(remoting::topic_list_json({"A"}, "h:1").dump(),
             R"({"brokerAddr":"h:1","topicList":["A"]})");
    CHECK_EQ(remoting::kv_table_json({{"k", "v"}}).dump(),
             R"({"table":{"k":"v"}})");
    broker_member_group g;
    g.cluster = "C";
    g.broker_name = "b";
    g.broker_addrs[1] = "h:2";
    CHECK_EQ(remoting::to_json(g).dump(),
             R"({"brokerMemberGroup":{"brokerAddrs":{"1":"h:2"},)"
             R"("brokerName":"b","cluster":"C"}})");
  }

  TEST_CASE("properties text both ways") {
    CHECK_EQ(remoting::properties_text({{"a", "1"}, {"b", "x y"}}),
             "a=1\nb=x y\n");
    auto kv = remoting::parse_properties_text(
      "# comment\n! also\n\n a = 1 \r\nb:2\nflag\nc=x=y");
    CHECK_EQ(kv, std::map<std::string, std::string>{
                   {"a", "1"}, {"b", "2"}, {"flag", ""}, {"c", "x=y"}});
  }

  TEST_CASE("remoting clients see remoting addresses, and only brokers "
            "that have one") {
    topic_route_data route;
    route.queue_datas = {{"broker-a", 4, 4, 6, 0}, {"broker-b", 4, 4, 6, 0}};
    broker_data a;
    a.cluster = "DefaultCluster";
    a.broker_name = "broker-a";
    a.broker_addrs = {{0, "10.0.0.1:10921"}, {1, "10.0.0.2:10921"}};
    a.remoting_addrs = {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}};
    broker_data b = a;
    b.broker_name = "broker-b";
    b.broker_addrs = {{0, "10.0.0.3:10921"}};
    b.remoting_addrs.clear(); // a broker without a remoting port
    route.broker_datas = {a, b};
    route.filter_server_table = {{"10.0.0.1:10921", {"f:1"}},
                                 {"10.0.0.3:10921", {"f:2"}}};
    auto seen = remoting::remoting_view(route);
    REQUIRE_EQ(seen.broker_datas.size(), 1u);
    CHECK_EQ(seen.broker_datas[0].broker_addrs,
             std::map<int64_t, std::string>{{0, "10.0.0.1:10911"},
                                            {1, "10.0.0.2:10911"}});
    REQUIRE_EQ(seen.queue_datas.size(), 1u);
    CHECK_EQ(seen.queue_datas[0].broker_name, "broker-a");
    CHECK_EQ(seen.filter_server_table,
             std::map<std::string, std::vector<std::string>>{
               {"10.0.0.1:10911", {"f:1"}}});
    auto body = remoting::to_json(seen).dump();
    CHECK_NE(body.find(R"("brokerAddrs":{"0":"10.0.0.1:10911","1":)"),
             std::string::npos);
    CHECK_EQ(body.find("10921"), std::string::npos);

    cluster_info info;
    info.broker_addr_table = {{"broker-a", a}, {"broker-b", b}};
    info.cluster_addr_table = {{"DefaultCluster", {"broker-a", "broker-b"}}};
    auto seen_info = remoting::remoting_view(info);
    REQUIRE_EQ(seen_info.broker_addr_table.size(), 1u);
    CHECK_EQ(seen_info.broker_addr_table["broker-a"].broker_addrs.at(1),
             "10.0.0.2:10911");
    CHECK_EQ(seen_info.cluster_addr_table["DefaultCluster"],
             std::vector<std::string>{"broker-a"});
  }

  TEST_CASE("remoting addresses follow the ids they belong to") {
    broker_data bd;
    bd.broker_addrs = {{0, "m:10921"}};
    bd.remoting_addrs = {{0, "m:10911"}, {1, "gone:10911"}};
    sync_remoting_addrs(bd);
    CHECK_EQ(bd.remoting_addrs, std::map<int64_t, std::string>{{0, "m:10911"}});
  }
}
