// REGISTER_BROKER through the front actor of a whole node: masters, slaves,
// role switches, data versions and topic tables (RocketMQ
// RouteInfoManagerNewTest, RouteInfoManagerBrokerRegisterTest).
#include "tests/actors/namesrv/namesrv_fixture.hpp"

using namespace rmq;
using namespace rmq::test;

namespace {

struct delete_missing_fixture : namesrv_fixture {
  static namesrv_options opts() {
    auto result = test_options();
    result.delete_topic_with_broker_registration = true;
    return result;
  }
  delete_missing_fixture() : namesrv_fixture(opts()) {
    // nop
  }
};

} // namespace

TEST_SUITE("namesrv.register") {
  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a master learns no master or HA address") {
    auto result = register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    CHECK(result.master_addr.empty());
    CHECK(result.ha_server_addr.empty());
    CHECK_EQ(addrs_of("broker-a"), std::map<int64_t, std::string>{{0, addr0}});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a slave learns its master's address and HA address") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    auto result = register_broker(
      make_registration(cluster_a, "broker-a", addr1, 1, {"T1"}));
    CHECK_EQ(result.master_addr, addr0);
    CHECK_EQ(result.ha_server_addr, "10.0.0.1:10912");
    CHECK_EQ(addrs_of("broker-a"),
             std::map<int64_t, std::string>{{0, addr0}, {1, addr1}});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a topic the master adds later is routed to both members") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-a", addr1, 1, {"T1"}));
    CHECK_FALSE(routed("T2"));
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}, 1));
    auto r = route("T2");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_addrs.size(), 2u);
  }

  TEST_CASE_FIXTURE(
    namesrv_fixture,
    "a slave-only acting-master group is routed read-only until "
    "its master comes") {
    auto slave = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    slave.enable_acting_master = true;
    CHECK(register_broker(slave).master_addr.empty());
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read);
    auto master = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    master.enable_acting_master = true;
    register_broker(master);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
    CHECK_EQ(register_broker(slave).master_addr, addr0);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a slave-only group without acting master is routed "
                    "through its prime slave, writable") {
    // Master down, NameServer restarted: RocketMQ's smallest slave id counts
    // as prime slave even without acting master, and keeps its perm.
    auto slave2 = make_registration(cluster_a, "broker-a", addr2, 2, {"T1"});
    auto slave1 = make_registration(cluster_a, "broker-a", addr1, 1,
                                    {"T1", "T2"});
    register_broker(slave2);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
    CHECK_FALSE(routed("T2"));
    register_broker(slave1); // now the smallest id: the prime slave
    CHECK_EQ(perm_of("T2", "broker-a"), perm::read_write);
    auto r = route("T1");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_addrs,
             (std::map<int64_t, std::string>{{1, addr1}, {2, addr2}}));
    register_broker(
      make_registration(cluster_a, "broker-a", addr2, 2, {"T1", "T3"}, 1));
    CHECK_FALSE(routed("T3")); // id 2 is no longer the smallest
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a re-registration without a zone clears the zone") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    reg.zone_name = "zone-1";
    register_broker(reg);
    CHECK_EQ(clusters().broker_addr_table.at("broker-a").zone_name, "zone-1");
    CHECK_EQ(route("T1").broker_datas.at(0).zone_name, "zone-1");
    reg.zone_name.clear();
    register_broker(reg);
    CHECK_EQ(clusters().broker_addr_table.at("broker-a").zone_name, "");
    CHECK_EQ(route("T1").broker_datas.at(0).zone_name, "");
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a plain slave never changes the topic table") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(
      make_registration(cluster_a, "broker-a", addr1, 1, {"T1", "SlaveOnly"}));
    CHECK_FALSE(routed("SlaveOnly"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a slave promoted to master keeps one record per address") {
    auto master = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    auto slave = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    register_broker(master);
    register_broker(slave);
    unregister(master);
    CHECK_EQ(addrs_of("broker-a"), std::map<int64_t, std::string>{{1, addr1}});
    register_broker(
      make_registration(cluster_a, "broker-a", addr1, 0, {"T1"}, 1));
    CHECK_EQ(addrs_of("broker-a"), std::map<int64_t, std::string>{{0, addr1}});
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 1, {"T1"}, 1));
    CHECK_EQ(addrs_of("broker-a"),
             std::map<int64_t, std::string>{{0, addr1}, {1, addr0}});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a new address with an older state version cannot take "
                    "the master id") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}, 5));
    auto err = ask_error<register_broker_result>(
      ns, make_registration(cluster_a, "broker-a", addr2, 0, {"T1"}, 3));
    CHECK(err == errc::system_error);
    CHECK_EQ(addrs_of("broker-a"), std::map<int64_t, std::string>{{0, addr0}});
    CHECK_EQ(dump_of("route_writer")["rejected_registrations"], 1);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a new address with the same state version replaces the "
                    "master") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-a", addr2, 0, {"T1"}));
    CHECK_EQ(addrs_of("broker-a"), std::map<int64_t, std::string>{{0, addr2}});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "the same address in two clusters keeps two data "
                    "versions") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"}, 1);
    auto b = make_registration(cluster_b, "broker-b", addr0, 0, {"TB"}, 2);
    register_broker(a);
    register_broker(b);
    auto qa = query_data_version_request{cluster_a, addr0, "broker-a", 0,
                                         a.version};
    auto qb = query_data_version_request{cluster_b, addr0, "broker-b", 0,
                                         a.version};
    auto ra = ask<query_data_version_result>(ns, qa);
    auto rb = ask<query_data_version_result>(ns, qb);
    CHECK_FALSE(ra.changed);
    CHECK(ra.version == a.version);
    CHECK(rb.changed);
    CHECK(rb.version == b.version);
    unregister(a);
    CHECK_FALSE(routed("TA"));
    CHECK(routed("TB"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "query_data_version reports a change of timestamp or "
                    "counter") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    query_data_version_request q{cluster_a, addr0, "broker-a", 0, reg.version};
    // Unknown broker: changed, nothing stored.
    auto unknown = ask<query_data_version_result>(ns, q);
    CHECK(unknown.changed);
    CHECK(unknown.version == data_version{});
    register_broker(reg);
    CHECK_FALSE(ask<query_data_version_result>(ns, q).changed);
    q.version.timestamp = 2;
    CHECK(ask<query_data_version_result>(ns, q).changed);
    q.version = reg.version;
    q.version.counter = 7;
    auto result = ask<query_data_version_result>(ns, q);
    CHECK(result.changed);
    CHECK(result.version == reg.version);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "re-registering with fewer topics keeps the missing ones "
                    "by default") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}));
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}, 1));
    CHECK(routed("T1"));
    CHECK(routed("T2"));
  }

  TEST_CASE_FIXTURE(delete_missing_fixture,
                    "with delete_topic_with_broker_registration a missing "
                    "topic loses only that broker") {
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"}));
    register_broker(make_registration(cluster_a, "broker-b", addr1, 0, {"T2"}));
    register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}, 1));
    CHECK(routed("T1"));
    auto t2 = route("T2");
    REQUIRE_EQ(t2.queue_datas.size(), 1u);
    CHECK_EQ(t2.queue_datas[0].broker_name, "broker-b");
    register_broker(make_registration(cluster_a, "broker-b", addr1, 0, {}, 1));
    CHECK_FALSE(routed("T2"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "an unchanged data version keeps a wiped write perm, a new "
                    "one restores the broker's own perm") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    ask<write_perm_result>(ns, wipe_write_perm_request{"broker-a"});
    register_broker(reg);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read);
    reg.version.counter += 1;
    register_broker(reg);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "filter servers are routed and an empty list removes "
                    "them") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    reg.has_filter_servers = true;
    reg.filter_server_list = {"10.0.0.9:30000"};
    register_broker(reg);
    auto r = route("T1");
    REQUIRE_EQ(r.filter_server_table.count(addr0), 1u);
    CHECK_EQ(r.filter_server_table[addr0],
             std::vector<std::string>{"10.0.0.9:30000"});
    reg.has_filter_servers = false; // untouched
    reg.filter_server_list.clear();
    register_broker(reg);
    CHECK_EQ(route("T1").filter_server_table.size(), 1u);
    reg.has_filter_servers = true; // empty list: removed
    register_broker(reg);
    CHECK(route("T1").filter_server_table.empty());
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a registration returns the ORDER_TOPIC_CONFIG "
                    "namespace") {
    ask<caf::ok_atom>(ns, put_kv_config_request{order_topic_config_namespace,
                                                "T1", "broker-a:8"});
    auto result = register_broker(
      make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    CHECK_EQ(result.kv_table,
             std::map<std::string, std::string>{{"T1", "broker-a:8"}});
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "the broker-sent heartbeat timeout and data version are "
                    "stored") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}, 4);
    reg.heartbeat_timeout_ms = 10'000;
    register_broker(reg);
    auto brokers = dump_of("broker_live_table")["brokers"];
    REQUIRE_EQ(brokers.size(), 1u);
    CHECK_EQ(brokers[0]["timeout_ms"], 10'000);
    CHECK_EQ(brokers[0]["data_version"]["state_version"], 4);
    CHECK_EQ(brokers[0]["ha_server_addr"], "10.0.0.1:10912");
  }

} // TEST_SUITE
