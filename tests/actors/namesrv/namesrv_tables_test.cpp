// The NameServer's pure pieces without an actor system: registration_plan and
// the table states' member functions (the logic behind each handler).
#include <chrono>

#include <doctest/doctest.h>

#include "actors/namesrv/broker_addr_table.hpp"
#include "actors/namesrv/broker_live_table.hpp"
#include "actors/namesrv/cluster_table.hpp"
#include "actors/namesrv/filter_server_table.hpp"
#include "actors/namesrv/registration_plan.hpp"
#include "actors/namesrv/topic_queue_table.hpp"
#include "tests/actors/namesrv/namesrv_fixture.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

using time_point = broker_live_table_state::time_point;

broker_live_table_state make_live() {
  broker_live_table_state st;
  st.default_timeout = 120s;
  return st;
}

broker_data group(std::map<int64_t, std::string> addrs, bool acting = false) {
  return {cluster_a, "broker-a", std::move(addrs), {}, "", acting};
}

live_summary live_row(const std::string& addr, int64_t state_version) {
  return {addr, true, data_version{state_version, 1, 1}, "ha-of-" + addr};
}

} // namespace

TEST_SUITE("namesrv.tables") {
  TEST_CASE("the live table removes an entry only with a current token") {
    auto st = make_live();
    time_point t0{};
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    st.put(reg, {}, t0);
    auto stale = st.stamp(unregistration_of(reg));
    CHECK(st.touch(cluster_a, addr0, t0 + 1s)); // the broker spoke again
    CHECK(st.remove({stale}).empty());
    CHECK_EQ(st.entries.size(), 1u);
    CHECK_EQ(st.stale_skipped_total, 1u);
    auto current = st.stamp(unregistration_of(reg));
    auto applied = st.remove({current});
    REQUIRE_EQ(applied.size(), 1u);
    CHECK(applied[0] == unregistration_of(reg));
    CHECK(st.entries.empty());
  }

  TEST_CASE("the live table applies an unregistration of an unknown broker "
            "unless it registered after the stamp") {
    auto st = make_live();
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    auto early = st.stamp(unregistration_of(reg));
    CHECK_EQ(st.remove({early}).size(), 1u); // cleans the other tables
    st.put(reg, {}, time_point{});
    CHECK(st.remove({early}).empty());
    CHECK_EQ(st.entries.size(), 1u);
  }

  TEST_CASE("the live table expires strictly after the timeout, once") {
    auto st = make_live();
    time_point t0{};
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    st.put(reg, {}, t0);
    CHECK(st.expire(t0 + 120s).empty());
    auto expired = st.expire(t0 + 121s);
    REQUIRE_EQ(expired.size(), 1u);
    CHECK_EQ(expired[0].reason, "expired");
    CHECK(expired[0].request == unregistration_of(reg));
    CHECK(st.expire(t0 + 200s).empty()); // already queued
    CHECK_EQ(st.expired_total, 1u);
  }

  TEST_CASE("a stamped unregistration does not stop the scan from expiring "
            "the broker") {
    auto st = make_live();
    time_point t0{};
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    st.put(reg, {}, t0);
    st.stamp(unregistration_of(reg)); // the batcher may refuse it
    CHECK_EQ(st.expire(t0 + 121s).size(), 1u);
  }

  TEST_CASE("the live table honours a broker-sent timeout") {
    auto st = make_live();
    time_point t0{};
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    reg.heartbeat_timeout_ms = 10'000;
    st.put(reg, {}, t0);
    CHECK(st.expire(t0 + 10s).empty());
    CHECK_EQ(st.expire(t0 + 11s).size(), 1u);
  }

  TEST_CASE("the live table keys entries by cluster and address") {
    auto st = make_live();
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {}, 1);
    auto b = make_registration(cluster_b, "broker-b", addr0, 0, {}, 2);
    st.put(a, {}, time_point{});
    st.put(b, {}, time_point{});
    REQUIRE_EQ(st.entries.size(), 2u);
    CHECK_EQ(st.entries[{cluster_a, addr0}].version.state_version, 1);
    CHECK_EQ(st.entries[{cluster_b, addr0}].version.state_version, 2);
    CHECK_FALSE(st.touch(cluster_a, addr1, time_point{}));
  }

  TEST_CASE("a first master registration overwrites topics") {
    auto req = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    auto plan = plan_registration(req, nullptr, {}, false);
    CHECK_FALSE(plan.rejected);
    CHECK_EQ(plan.group.broker_addrs,
             std::map<int64_t, std::string>{{0, addr0}});
    CHECK(plan.touch_topics);
    CHECK(plan.topics.force);
    CHECK_FALSE(plan.topics.strip_write);
    CHECK(plan.result.master_addr.empty());
  }

  TEST_CASE("a master with an unchanged data version does not force topics") {
    auto req = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}, 3);
    auto current = group({{0, addr0}});
    auto plan = plan_registration(req, &current, {live_row(addr0, 3)}, false);
    CHECK(plan.touch_topics);
    CHECK_FALSE(plan.topics.force);
    auto newer = req;
    newer.version.counter = 2;
    CHECK(plan_registration(newer, &current, {live_row(addr0, 3)}, false)
            .topics.force);
  }

  TEST_CASE("a slave leaves topics alone and learns a live master") {
    auto req = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    auto current = group({{0, addr0}});
    auto plan = plan_registration(req, &current, {live_row(addr0, 0)}, false);
    CHECK_FALSE(plan.touch_topics);
    CHECK_EQ(plan.result.master_addr, addr0);
    CHECK_EQ(plan.result.ha_server_addr, "ha-of-" + addr0);
    auto no_live_master = plan_registration(req, &current, {}, false);
    CHECK(no_live_master.result.master_addr.empty());
  }

  TEST_CASE("a prime slave of an acting-master group writes read-only "
            "topics") {
    auto req = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    req.enable_acting_master = true;
    auto current = group({{2, addr2}}, true);
    auto plan = plan_registration(req, &current, {}, false);
    CHECK(plan.touch_topics);
    CHECK(plan.topics.strip_write);
    req.broker_id = 3; // not the smallest id
    CHECK_FALSE(plan_registration(req, &current, {}, false).touch_topics);
  }

  TEST_CASE("a prime slave without acting master keeps the write bit") {
    auto req = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    auto current = group({{2, addr2}});
    auto plan = plan_registration(req, &current, {}, false);
    CHECK(plan.touch_topics);
    CHECK_FALSE(plan.topics.strip_write);
    auto first = plan_registration(req, nullptr, {}, false);
    CHECK(first.touch_topics);
    CHECK(first.topics.force);
  }

  TEST_CASE("an id held by a newer address is refused, an equal one "
            "replaced") {
    auto req = make_registration(cluster_a, "broker-a", addr2, 0, {"T1"}, 3);
    auto current = group({{0, addr0}});
    auto plan = plan_registration(req, &current, {live_row(addr0, 5)}, false);
    CHECK(plan.rejected);
    CHECK_NE(plan.reject_reason.find(addr0), std::string::npos);
    auto equal = plan_registration(req, &current, {live_row(addr0, 3)}, false);
    CHECK_FALSE(equal.rejected);
    CHECK_EQ(equal.group.broker_addrs,
             std::map<int64_t, std::string>{{0, addr2}});
  }

  TEST_CASE("a slave switching to master keeps one record for its address") {
    auto req = make_registration(cluster_a, "broker-a", addr1, 0, {"T1"}, 1);
    auto current = group({{1, addr1}});
    auto plan = plan_registration(req, &current, {live_row(addr1, 0)}, false);
    CHECK_EQ(plan.group.broker_addrs,
             std::map<int64_t, std::string>{{0, addr1}});
    CHECK(plan.topics.force); // id 0 was empty: a first registration
  }

  TEST_CASE("the address table removes by address and reports the group") {
    broker_addr_table_state st;
    st.brokers["broker-a"] = group({{0, addr0}, {1, addr1}}, true);
    // The request's id is wrong (a role switch): removal goes by address.
    auto out = st.remove({{cluster_a, addr0, "broker-a", 7}});
    REQUIRE_EQ(out.size(), 1u);
    CHECK_FALSE(out[0].removed);
    CHECK(out[0].strip_write); // acting master on, no id 0 left
    CHECK_EQ(st.brokers["broker-a"].broker_addrs,
             std::map<int64_t, std::string>{{1, addr1}});
    out = st.remove({{cluster_a, addr1, "broker-a", 1}});
    REQUIRE_EQ(out.size(), 1u);
    CHECK(out[0].removed);
    CHECK(st.brokers.empty());
  }

  TEST_CASE("the topic table keeps, drops and strips per broker") {
    topic_queue_table_state st;
    st.apply(broker_topics_update{
      "broker-a", {make_topic("T1"), make_topic("T2")}, true, false, false});
    st.apply(
      broker_topics_update{"broker-b", {make_topic("T2")}, true, false, false});
    CHECK_EQ(st.wipe_write_perm("broker-a"), 2);
    // Unforced: existing queue data (the wiped perm) stays.
    st.apply(broker_topics_update{
      "broker-a", {make_topic("T1")}, false, false, false});
    CHECK_EQ(st.topics["T1"]["broker-a"].perm, perm::read);
    // delete_missing drops broker-a from T2 but keeps broker-b there.
    st.apply(
      broker_topics_update{"broker-a", {make_topic("T1")}, true, true, false});
    CHECK_EQ(st.topics["T2"].count("broker-a"), 0u);
    CHECK_EQ(st.topics["T2"].count("broker-b"), 1u);
    st.remove({{cluster_a, "broker-b", false, true}});
    CHECK_EQ(st.topics["T2"]["broker-b"].perm, perm::read);
    st.remove({{cluster_a, "broker-b", true, false}});
    CHECK_EQ(st.topics.count("T2"), 0u);
    CHECK_EQ(st.add_write_perm("broker-a"), 1);
    CHECK_EQ(st.topics["T1"]["broker-a"].perm, perm::read_write);
    st.erase("T1", {"broker-a"});
    CHECK(st.all_topics().topics.empty());
  }

  TEST_CASE("the cluster table forgets removed groups and empty clusters") {
    cluster_table_state st;
    st.add(cluster_a, "broker-a");
    st.add(cluster_a, "broker-b");
    st.remove({{cluster_a, "broker-a", false, false}}); // only reduced
    CHECK_EQ(st.brokers_of(cluster_a).size(), 2u);
    st.remove({{cluster_a, "broker-a", true, false}});
    CHECK_EQ(st.brokers_of(cluster_a), std::vector<std::string>{"broker-b"});
    st.remove({{cluster_a, "broker-b", true, false}});
    CHECK(st.all().empty());
  }

  TEST_CASE("the filter server table maps the asked addresses") {
    filter_server_table_state st;
    st.put(cluster_a, addr0, {"f1:1"});
    st.put(cluster_a, addr1, {"f2:1"});
    auto found = st.find({addr0});
    CHECK_EQ(found, std::map<std::string, std::vector<std::string>>{
                      {addr0, {"f1:1"}}});
    st.put(cluster_a, addr0, {});
    CHECK(st.find({addr0}).empty());
    st.remove({{cluster_a, addr1, "broker-b", 0}});
    CHECK(st.servers.empty());
  }

} // TEST_SUITE
