// Topic administration through the front actor: delete (everywhere or per
// cluster), register, wipe and add write perm (RocketMQ deleteTopic,
// registerTopic, wipe/addWritePermOfBrokerByLock, RouteInfoManagerBrokerPermTest).
#include "tests/actors/namesrv/namesrv_fixture.hpp"

using namespace rmq;
using namespace rmq::test;

TEST_SUITE("namesrv.topic_admin") {
  TEST_CASE_FIXTURE(namesrv_fixture, "a deleted topic has no route") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}));
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", ""});
    CHECK_FALSE(routed("T1"));
    CHECK(routed("T2"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "deleting a topic for one cluster keeps the other "
                    "cluster's broker") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_b, "broker-b", addr1, 0, {"T1"}));
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", cluster_a});
    auto r = route("T1");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_name, "broker-b");
    REQUIRE_EQ(r.queue_datas.size(), 1u);
    CHECK_EQ(r.queue_datas[0].broker_name, "broker-b");
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", cluster_b});
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "deleting an unknown topic or for an unknown cluster "
                    "succeeds and changes nothing") {
    // RocketMQ's deleteTopicInNamesrv is idempotent: scripts delete across
    // several NameServers, some of which never had the topic.
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    ask<caf::ok_atom>(ns, delete_topic_request{"Nope", ""});
    ask<caf::ok_atom>(ns, delete_topic_request{"Nope", cluster_a});
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", "Nobody"});
    CHECK(routed("T1"));
    CHECK_EQ(all_topics(), std::vector<std::string>{"T1"});
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", ""});
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", ""}); // again: still ok
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "wiping write perm turns 6 into 4 and counts the "
                    "topics") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}));
    register_broker(make_registration(cluster_a, "broker-b", addr1, 0, {"T1"}));
    auto wiped = ask<write_perm_result>(ns,
                                        wipe_write_perm_request{"broker-a"});
    CHECK_EQ(wiped.topic_count, 2);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read);
    CHECK_EQ(perm_of("T2", "broker-a"), perm::read);
    CHECK_EQ(perm_of("T1", "broker-b"), perm::read_write);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "adding write perm turns 4 into 6 and counts the "
                    "topics") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {});
    reg.topics.push_back(make_topic("T1", perm::read));
    register_broker(reg);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read);
    auto added = ask<write_perm_result>(ns, add_write_perm_request{"broker-a"});
    CHECK_EQ(added.topic_count, 1);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "wiping or adding perm of an unknown broker touches "
                    "nothing") {
    CHECK_EQ(
      ask<write_perm_result>(ns, wipe_write_perm_request{"ghost"}).topic_count,
      0);
    CHECK_EQ(
      ask<write_perm_result>(ns, add_write_perm_request{"ghost"}).topic_count,
      0);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "registering a topic on known brokers creates its "
                    "route") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_topic_request req{"NewTopic",
                               {queue_data{"broker-a", 4, 4, perm::read, 0}}};
    ask<caf::ok_atom>(ns, req);
    auto r = route("NewTopic");
    REQUIRE_EQ(r.queue_datas.size(), 1u);
    CHECK(r.queue_datas[0] == req.queue_datas[0]);
    CHECK_EQ(dump_of("route_writer")["topic_writes"], 1);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "registering a topic for an unknown broker fails and "
                    "writes nothing") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_topic_request req{"NewTopic",
                               {queue_data{"broker-a", 4, 4, 6, 0},
                                queue_data{"ghost", 4, 4, 6, 0}}};
    auto err = ask_error<caf::ok_atom>(ns, req);
    CHECK(err == errc::broker_not_found);
    CHECK_NE(error_detail(err).find("ghost"), std::string::npos);
    CHECK_FALSE(routed("NewTopic"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a route read before a topic write shows the write "
                    "afterwards") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_b, "broker-b", addr1, 0, {}));
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write); // cached now
    ask<write_perm_result>(ns, wipe_write_perm_request{"broker-a"});
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read);
    ask<write_perm_result>(ns, add_write_perm_request{"broker-a"});
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
    ask<caf::ok_atom>(
      ns, register_topic_request{"T1", {queue_data{"broker-b", 2, 2, 6, 0}}});
    CHECK_EQ(route("T1").queue_datas.size(), 2u);
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", cluster_a});
    CHECK_EQ(route("T1").queue_datas.size(), 1u);
    ask<caf::ok_atom>(ns, delete_topic_request{"T1", ""});
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "registering a topic with no queue data is a no-op") {
    ask<caf::ok_atom>(ns, register_topic_request{"Empty", {}});
    CHECK_FALSE(routed("Empty"));
    CHECK(all_topics().empty());
  }

} // TEST_SUITE
