// UNREGISTER_BROKER, lost connections and the batcher through a whole node
// (RocketMQ RouteInfoManagerNewTest: unregisterBroker, submitMultiUnRegister,
// unRegisterSlave/MasterBroker, onChannelDestroy; issue #11043).
#include "tests/actors/namesrv/namesrv_fixture.hpp"

#include "caf/scoped_actor.hpp"

using namespace rmq;
using namespace rmq::test;

namespace {

struct tiny_queue_fixture : namesrv_fixture {
  tiny_queue_fixture() : namesrv_fixture(options_with(1)) {
    // nop
  }
};

} // namespace

TEST_SUITE("namesrv.unregister") {
  TEST_CASE_FIXTURE(namesrv_fixture,
                    "an unregistered broker disappears from every table") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"});
    reg.has_filter_servers = true;
    reg.filter_server_list = {"10.0.0.9:30000"};
    register_broker(reg);
    unregister(reg);
    CHECK_FALSE(routed("T1"));
    CHECK_FALSE(routed("T2"));
    auto info = clusters();
    CHECK(info.broker_addr_table.empty());
    CHECK(info.cluster_addr_table.empty());
    CHECK(dump_of("broker_live_table")["brokers"].empty());
    CHECK(dump_of("filter_server_table")["entries"].empty());
    CHECK(all_topics().empty());
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "two unregistrations queued together are applied as one "
                    "batch") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    auto b = make_registration(cluster_a, "broker-b", addr1, 0, {"TB"});
    register_broker(a);
    register_broker(b);
    auto batches_before = dump_of("unregistration_batcher")["batches"];
    auto batcher
      = actor_named<unregistration_batcher_actor>("unregistration_batcher");
    auto live = actor_named<broker_live_table_actor>("broker_live_table");
    auto ua = ask<unregistration>(live, unregistration_of(a));
    auto ub = ask<unregistration>(live, unregistration_of(b));
    self->send(batcher, std::vector<unregistration>{ua, ub});
    sched.run();
    auto dump = dump_of("unregistration_batcher");
    CHECK_EQ(dump["batches"], batches_before.get<int>() + 1);
    CHECK_EQ(dump["last_batch_size"], 2);
    CHECK_FALSE(routed("TA"));
    CHECK_FALSE(routed("TB"));
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "unregistering the slave keeps the master as id 0") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    auto slave = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    register_broker(slave);
    unregister(slave);
    auto r = route("T1");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_addrs,
             std::map<int64_t, std::string>{{0, addr0}});
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "unregistering one slave of three members removes only "
                    "its address") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-a", addr1, 1, {"T1"}));
    auto third = make_registration(cluster_a, "broker-a", "10.0.0.3:10911", 2,
                                   {"T1"});
    register_broker(third);
    unregister(third);
    CHECK_EQ(addrs_of("broker-a"),
             std::map<int64_t, std::string>{{0, addr0}, {1, addr1}});
  }

  TEST_CASE("unregistering the master of an acting-master group leaves the "
            "topic read-only") {
    namesrv_fixture f;
    auto master = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    auto slave = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    master.enable_acting_master = slave.enable_acting_master = true;
    f.register_broker(master);
    f.register_broker(slave);
    f.unregister(master);
    CHECK_EQ(f.addrs_of("broker-a"),
             std::map<int64_t, std::string>{{1, addr1}});
    CHECK_EQ(f.perm_of("T1", "broker-a"), perm::read);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "without acting master a masterless group keeps perm 6 but "
                    "has no id 0") {
    auto master = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(master);
    register_broker(make_registration(cluster_a, "broker-a", addr1, 1, {"T1"}));
    unregister(master);
    auto r = route("T1");
    REQUIRE_EQ(r.broker_datas.size(), 1u);
    CHECK_EQ(r.broker_datas[0].broker_addrs.count(master_id), 0u);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a route follows its master out and back in") {
    auto master = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    auto slave = make_registration(cluster_a, "broker-a", addr1, 1, {"T1"});
    master.enable_acting_master = slave.enable_acting_master = true;
    register_broker(master);
    register_broker(slave);
    unregister(master);
    CHECK_EQ(route("T1").broker_datas[0].broker_addrs.size(), 1u);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read);
    register_broker(master); // same version: id 0 was empty, topics rewritten
    CHECK_EQ(route("T1").broker_datas[0].broker_addrs.size(), 2u);
    CHECK_EQ(perm_of("T1", "broker-a"), perm::read_write);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a lost connection unregisters the brokers that registered "
                    "through it") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    auto b = make_registration(cluster_a, "broker-b", addr1, 0, {"TB"});
    register_broker(b); // through the fixture's own actor, stays connected
    {
      caf::scoped_actor broker{sys};
      auto rh = broker->request(ns, caf::infinite, a);
      sched.run();
      rh.receive([](const register_broker_result&) {},
                 [](const caf::error& err) { FAIL(rmq::describe(err)); });
      CHECK(routed("TA"));
    } // the broker's actor goes down
    sched.run();
    CHECK_FALSE(routed("TA"));
    CHECK(routed("TB"));
    CHECK_EQ(dump_node()["actors"][0]["connections_lost"], 1);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "an unregistration queued before a re-registration does "
                    "not wipe the broker (issue 11043)") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    // Both requests are in the mailbox before anything runs: the
    // unregistration is stamped first, the registration lands before the
    // batch is applied.
    caf::scoped_actor broker{sys};
    auto h1 = broker->request(ns, caf::infinite, unregistration_of(reg));
    auto h2 = broker->request(ns, caf::infinite, reg);
    sched.run();
    h1.receive([](caf::ok_atom) {},
               [](const caf::error& err) { FAIL(rmq::describe(err)); });
    h2.receive([](const register_broker_result&) {},
               [](const caf::error& err) { FAIL(rmq::describe(err)); });
    CHECK(routed("T1"));
    CHECK_EQ(addrs_of("broker-a"), std::map<int64_t, std::string>{{0, addr0}});
    CHECK_EQ(dump_of("broker_live_table")["stale_unregistrations_skipped"], 1);
  }

  TEST_CASE_FIXTURE(namesrv_fixture,
                    "a stale unregistration sent to the batcher is skipped, a "
                    "current one applies") {
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
    register_broker(reg);
    auto live = actor_named<broker_live_table_actor>("broker_live_table");
    auto batcher
      = actor_named<unregistration_batcher_actor>("unregistration_batcher");
    auto stale = ask<unregistration>(live, unregistration_of(reg));
    heartbeat(reg); // the broker spoke after the unregistration was stamped
    ask<caf::ok_atom>(batcher, stale);
    CHECK(routed("T1"));
    auto current = ask<unregistration>(live, unregistration_of(reg));
    ask<caf::ok_atom>(batcher, current);
    CHECK_FALSE(routed("T1"));
  }

  TEST_CASE_FIXTURE(no_scan_fixture,
                    "a queued expiry is cancelled by a re-registration") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    auto b = make_registration(cluster_a, "broker-b", addr1, 0, {"TB"});
    register_broker(a);
    register_broker(b);
    auto live = actor_named<broker_live_table_actor>("broker_live_table");
    auto batcher
      = actor_named<unregistration_batcher_actor>("unregistration_batcher");
    advance_time(std::chrono::seconds{121}, std::chrono::seconds{1});
    // No scan timer here: the test plays the scan.
    auto expired = ask<std::vector<unregistration>>(live, scan_atom::value);
    REQUIRE_EQ(expired.size(), 2u);
    CHECK_EQ(expired[0].reason, "expired");
    register_broker(a); // broker-a comes back before the batch is applied
    self->send(batcher, expired);
    sched.run();
    CHECK(routed("TA"));
    CHECK_FALSE(routed("TB"));
  }

  TEST_CASE_FIXTURE(tiny_queue_fixture,
                    "a full unregistration queue refuses with queue_full and "
                    "the node keeps serving") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    register_broker(a);
    // Several unregistrations arrive at once: the queue holds one, a batch
    // may be in flight, the rest are refused.
    caf::scoped_actor c{sys};
    std::vector<decltype(c->request(ns, caf::infinite, unregistration_of(a)))>
      handles;
    for (int i = 0; i < 4; ++i)
      handles.push_back(c->request(ns, caf::infinite, unregistration_of(a)));
    sched.run();
    int ok = 0;
    int full = 0;
    for (auto& h : handles)
      h.receive([&](caf::ok_atom) { ++ok; },
                [&](const caf::error& err) {
                  CHECK_MESSAGE(err == errc::queue_full, describe(err));
                  ++full;
                });
    CHECK_GE(full, 1);
    CHECK_GE(ok, 1);
    CHECK_EQ(ok + full, 4);
    CHECK_EQ(dump_of("unregistration_batcher")["refused"], full);
    CHECK_FALSE(routed("TA"));
    register_broker(a);
    CHECK(routed("TA"));
    heartbeat(a);
  }

  TEST_CASE_FIXTURE(tiny_queue_fixture,
                    "a broker whose unregistration was refused still expires") {
    auto a = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    auto b = make_registration(cluster_a, "broker-b", addr1, 0, {"TB"});
    register_broker(a);
    register_broker(b);
    caf::scoped_actor c{sys};
    std::vector<decltype(c->request(ns, caf::infinite, unregistration_of(b)))>
      handles;
    for (int i = 0; i < 3; ++i)
      handles.push_back(c->request(ns, caf::infinite, unregistration_of(b)));
    handles.push_back(c->request(ns, caf::infinite, unregistration_of(a)));
    sched.run();
    bool refused = false;
    for (auto& h : handles) // the last answer is broker-a's
      h.receive([&](caf::ok_atom) { refused = false; },
                [&](const caf::error& err) {
                  refused = err == errc::queue_full;
                });
    REQUIRE(refused);
    CHECK(routed("TA")); // nothing happened to broker-a
    advance_time(std::chrono::seconds{120}, std::chrono::seconds{5});
    CHECK(routed("TA"));
    advance_time(std::chrono::seconds{5}, std::chrono::seconds{5});
    CHECK_FALSE(routed("TA"));
  }

} // TEST_SUITE
