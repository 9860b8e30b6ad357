// Route bodies against the JSON a Java NameServer writes
// (shared/reference/rocketmq-remoting.md, GET_ROUTEINFO_BY_TOPIC): the
// same text, but for the broker id quoted as standard JSON wants.
#include "runtime/remoting/route_body.hpp"

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
}
