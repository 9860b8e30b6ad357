// Reads through the front actor: routes, cluster info, topic lists, member
// groups (RocketMQ pickupTopicRouteData, getAllClusterInfo,
// getAllTopicList, getTopicsByCluster, getBrokerMemberGroup).
#include "tests/actors/namesrv/namesrv_fixture.hpp"

#include <algorithm>

using namespace rmq;
using namespace rmq::test;

namespace {

std::vector<std::string> sorted(std::vector<std::string> xs) {
  std::sort(xs.begin(), xs.end());
  return xs;
}

struct order_fixture : namesrv_fixture {
  static namesrv_options opts() {
    auto result = test_options();
    result.order_message_enable = true;
    return result;
  }
  order_fixture() : namesrv_fixture(opts()) {
    // nop
  }
};

struct lists_off_fixture : namesrv_fixture {
  static namesrv_options opts() {
    auto result = test_options();
    result.enable_all_topic_list = false;
    result.enable_topic_list = false;
    return result;
  }
  lists_off_fixture() : namesrv_fixture(opts()) {
    // nop
  }
};

} // namespace

TEST_SUITE("namesrv.route") {
  TEST_CASE_FIXTURE(namesrv_fixture, "an unknown topic has no route") {
    auto err = route_error("NoSuchTopic");
    CHECK(err == errc::topic_not_exist);
    CHECK_NE(error_detail(err).find("NoSuchTopic"), std::string::npos);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "the route of a topic on one broker has its master and "
                    "its queues") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    auto r = route("T1");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_name, "broker-a");
    CHECK_EQ(r.broker_datas[0].cluster, cluster_a);
    CHECK_EQ(r.broker_datas[0].broker_addrs.at(master_id), addr0);
    REQUIRE_EQ(r.queue_datas.size(), 1u);
    CHECK(r.queue_datas[0]
          == queue_data{"broker-a", 8, 8, perm::read_write, 0});
    CHECK(r.filter_server_table.empty());
    CHECK(r.order_topic_conf.empty());
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "the route of a topic on two brokers lists both") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-b", addr1, 0, {"T1"}));
    auto r = route("T1");
    CHECK_EQ(r.broker_datas.size(), 2u);
    CHECK_EQ(r.queue_datas.size(), 2u);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a route with a slave lists both addresses of the group") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-a", addr1, 1, {"T1"}));
    auto r = route("T1");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_addrs,
             std::map<int64_t, std::string>{{0, addr0}, {1, addr1}});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "cluster info lists two clusters with their brokers") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_b, "broker-b", addr1, 0, {"T2"}));
    auto info = clusters();
    CHECK_EQ(info.cluster_addr_table,
             std::map<std::string, std::vector<std::string>>{
               {cluster_a, {"broker-a"}}, {cluster_b, {"broker-b"}}});
    REQUIRE_EQ(info.broker_addr_table.size(), 2u);
    CHECK_EQ(info.broker_addr_table["broker-a"].broker_addrs.at(0), addr0);
    CHECK_EQ(info.broker_addr_table["broker-b"].broker_addrs.at(0), addr1);
    CHECK_EQ(info.broker_addr_table["broker-b"].cluster, cluster_b);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "the topic list is empty at start and holds every "
                    "registered topic") {
    CHECK(all_topics().empty());
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}));
    register_broker(make_registration(cluster_b, "broker-b", addr1, 0, {"T3"}));
    CHECK_EQ(sorted(all_topics()), std::vector<std::string>{"T1", "T2", "T3"});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "topics by cluster lists only that cluster's topics") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "Shared"}));
    register_broker(
      make_registration(cluster_b, "broker-b", addr1, 0, {"T2", "Shared"}));
    auto a = ask<topic_list>(ns, get_topics_by_cluster_request{cluster_a});
    CHECK_EQ(sorted(a.topics), std::vector<std::string>{"Shared", "T1"});
    auto none = ask<topic_list>(ns, get_topics_by_cluster_request{"Nobody"});
    CHECK(none.topics.empty());
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a member group lists a broker's ids and addresses") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-a", addr1, 1, {"T1"}));
    auto group = ask<broker_member_group>(
      ns, get_broker_member_group_request{cluster_a, "broker-a"});
    CHECK_EQ(group.cluster, cluster_a);
    CHECK_EQ(group.broker_name, "broker-a");
    CHECK_EQ(group.broker_addrs,
             std::map<int64_t, std::string>{{0, addr0}, {1, addr1}});
    auto unknown = ask<broker_member_group>(
      ns, get_broker_member_group_request{"AskedCluster", "broker-x"});
    // RocketMQ: success, the requested names, no addresses.
    CHECK_EQ(unknown.cluster, "AskedCluster");
    CHECK_EQ(unknown.broker_name, "broker-x");
    CHECK(unknown.broker_addrs.empty());
    auto asked = ask<broker_member_group>(
      ns, get_broker_member_group_request{"AskedCluster", "broker-a"});
    CHECK_EQ(asked.cluster, "AskedCluster"); // as RocketMQ: what was asked
    auto no_cluster = ask<broker_member_group>(
      ns, get_broker_member_group_request{"", "broker-a"});
    CHECK_EQ(no_cluster.cluster, cluster_a); // none asked: the stored one
  }

  TEST_CASE_FIXTURE(lists_off_fixture,
                    "disabled topic lists answer system_error") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    CHECK(ask_error<topic_list>(ns, get_all_topic_list_request{})
          == errc::system_error);
    CHECK(ask_error<topic_list>(ns, get_topics_by_cluster_request{cluster_a})
          == errc::system_error);
    CHECK(routed("T1"));
  }

  TEST_CASE_FIXTURE(order_fixture,
                    "with order messages enabled a route carries the topic's "
                    "order config") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}));
    ask<caf::ok_atom>(ns, put_kv_config_request{order_topic_config_namespace,
                                                "T1", "broker-a:8"});
    CHECK_EQ(route("T1").order_topic_conf, "broker-a:8");
    CHECK(route("T2").order_topic_conf.empty());
    CHECK(route_error("Nope") == errc::topic_not_exist);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "without order messages a route ignores the order "
                    "config") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    ask<caf::ok_atom>(ns, put_kv_config_request{order_topic_config_namespace,
                                                "T1", "broker-a:8"});
    CHECK(route("T1").order_topic_conf.empty());
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a re-registration that changes nothing keeps cached "
                    "routes") {
    auto req = make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"});
    register_broker(req);
    route("T1"); // cached now
    auto before = dump_of("route_reader");
    register_broker(req); // the periodic 30 s re-registration
    heartbeat(req);
    auto after = dump_of("route_reader");
    CHECK_EQ(after["invalidations"], before["invalidations"]);
    route("T1");
    CHECK_EQ(dump_of("route_reader")["hits"].get<int>(),
             before["hits"].get<int>() + 1);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a re-registration with a new topic or a new version "
                    "drops cached routes") {
    auto req = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(req);
    route("T1");
    auto invalidations = [this] {
      return dump_of("route_reader")["invalidations"].get<int>();
    };
    auto before = invalidations();
    req.topics.push_back(make_topic("T2"));
    register_broker(req); // same version, one more topic
    CHECK_EQ(invalidations(), before + 1);
    CHECK(routed("T2"));
    req.version.counter += 1;
    req.topics[0].write_queue_nums = 4;
    register_broker(req); // new version rewrites T1's queues
    CHECK_EQ(invalidations(), before + 2);
    CHECK_EQ(route("T1").queue_datas.at(0).write_queue_nums, 4);
  }

} // TEST_SUITE
