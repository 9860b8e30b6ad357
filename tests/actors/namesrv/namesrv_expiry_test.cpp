// Broker expiry on the virtual clock: the scan timer, heartbeats and the
// batcher (RocketMQ scanNotActiveBroker, BROKER_HEARTBEAT). The scan timer
// re-arms itself, so time only moves through advance_time(total, step).
#include "tests/actors/namesrv/namesrv_fixture.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

TEST_SUITE("namesrv.expiry") {
  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a silent broker is routed at its timeout and gone one "
                    "scan later") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    advance_time(120s, 5s);
    CHECK(routed("T1"));
    CHECK_EQ(dump_of("broker_live_table")["brokers"][0]["idle_ms"], 120'000);
    advance_time(5s, 5s);
    CHECK_FALSE(routed("T1"));
    CHECK(clusters().broker_addr_table.empty());
    CHECK(clusters().cluster_addr_table.empty());
    CHECK(dump_of("broker_live_table")["brokers"].empty());
    CHECK_EQ(dump_of("broker_live_table")["expired_total"], 1);
    CHECK_EQ(dump_of("scan_timer")["expired"], 1);
    CHECK_EQ(dump_of("scan_timer")["scans"], 25);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "heartbeats keep a broker alive for hours") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    for (int i = 0; i < 3 * 60 * 2; ++i) { // 3 h, one heartbeat every 30 s
      advance_time(30s, 5s);
      heartbeat(reg);
    }
    CHECK(routed("T1"));
    CHECK_EQ(dump_of("broker_live_table")["expired_total"], 0);
    advance_time(125s, 5s); // then silence
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a data version query counts as a heartbeat") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    query_data_version_request q{cluster_a, addr0, "broker-a", 0, reg.version};
    for (int i = 0; i < 10; ++i) {
      advance_time(60s, 5s);
      ask<query_data_version_result>(ns, q);
    }
    CHECK(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a broker-sent heartbeat timeout is honoured") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    reg.heartbeat_timeout_ms = 10'000;
    register_broker(reg);
    advance_time(10s, 5s);
    CHECK(routed("T1"));
    advance_time(5s, 5s);
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture, "only the silent broker of two expires") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    auto b = make_registration(cluster_a, "broker-b", addr1, 0, {"TB"});
    register_broker(a);
    register_broker(b);
    advance_time(60s, 5s);
    heartbeat(b);
    advance_time(65s, 5s); // 125 s after registration
    CHECK_FALSE(routed("TA"));
    CHECK(routed("TB"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "expiries found in one scan are applied as one batch") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"TA"}));
    register_broker(make_registration(cluster_a, "broker-b", addr1, 0, {"TB"}));
    register_broker(make_registration(cluster_b, "broker-c", addr2, 0, {"TC"}));
    advance_time(125s, 5s);
    auto batcher = dump_of("unregistration_batcher");
    CHECK_EQ(batcher["batches"], 1);
    CHECK_EQ(batcher["last_batch_size"], 3);
    CHECK_EQ(batcher["applied"], 3);
    auto writer = dump_of("route_writer");
    CHECK_EQ(writer["unregistration_batches"], 1);
    CHECK_EQ(writer["unregistered_brokers"], 3);
    CHECK(all_topics().empty());
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "an expired broker that registers again is routed "
                    "again") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    advance_time(125s, 5s);
    CHECK_FALSE(routed("T1"));
    CHECK(ask_error<caf::ok_atom>(ns, heartbeat_of(reg))
          == errc::broker_not_found);
    register_broker(reg);
    CHECK(routed("T1"));
    advance_time(120s, 5s);
    CHECK(routed("T1"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "an expired old master does not remove the address that "
                    "replaced it") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    advance_time(60s, 5s);
    register_broker(make_registration(cluster_a, "broker-a", addr2, 0, {"T1"}));
    advance_time(65s, 5s); // the old address expires at 125 s
    CHECK_EQ(dump_of("broker_live_table")["expired_total"], 1);
    CHECK_EQ(route("T1").broker_datas[0].broker_addrs,
             std::map<int64_t, std::string>{{0, addr2}});
    advance_time(60s, 5s); // the new one at 185 s
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(no_scan_fixture,
                    "a zero scan interval never expires anyone") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    advance_time(1h, 1min);
    CHECK(routed("T1"));
    CHECK_EQ(dump_of("scan_timer")["scans"], 0);
  }

} // TEST_SUITE
