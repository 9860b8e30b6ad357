// A master's replication service and a slave's client on the
// deterministic coordinator: the slave catches up from its own offset,
// a held ask is woken by the master's next append, the slave's queues
// read as the master's, and a slave of another group is refused with
// nothing written.
#include <chrono>
#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "actors/broker/replication/ha_client.hpp"
#include "actors/broker/replication/ha_service.hpp"
#include "actors/broker/store/store_actors.hpp"
#include "messages/common/errors.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct side {
  test::temp_dir dir;
  std::shared_ptr<storage::message_store> store;
  store_actors actors;
};

struct fixture : test::deterministic_fixture {
  side master, slave;
  ha_service_actor service;
  ha_client_actor client;

  /// Both stores and the master's service; `sync_master`: SYNC_MASTER.
  void start(bool sync_master = false) {
    for (auto* s : {&master, &slave}) {
      auto cfg = test::small_config(s->dir.path());
      cfg.sync_replication = sync_master && s == &master;
      s->store = test::open_store(cfg);
      s->actors = spawn_store_actors(sys, s->store, false, 1s);
      track(s->actors.commit_log);
      track(s->actors.flusher);
      track(s->actors.queue_service);
      track(s->actors.warmer);
    }
    ha_service_options so;
    so.store = master.store;
    so.broker_name = "broker-a";
    so.writer = master.actors.commit_log;
    service = spawn(ha_service, so);
    caf::anon_send(master.actors.commit_log, caf::subscribe_atom::value,
                   service);
    sched.run();
  }

  ~fixture() {
    // The writers close their stores before the folders go.
    for (auto* s : {&master, &slave})
      caf::anon_send_exit(s->actors.commit_log,
                          caf::exit_reason::user_shutdown);
    sched.run();
  }

  ha_client_actor start_client(const std::string& name) {
    ha_client_options co;
    co.master = service;
    co.writer = slave.actors.commit_log;
    co.store = slave.store;
    co.broker_name = name;
    co.broker_id = 1;
    co.max_bytes = 512; // several chunks
    return spawn(ha_client, co);
  }

  std::vector<put_result> put(int n, int first = 0) {
    std::vector<store_message> batch;
    for (int i = first; i < first + n; ++i)
      batch.push_back(test::make_message("T", i % 2, "m" + std::to_string(i)));
    auto res = ask<std::vector<put_result>>(master.actors.commit_log,
                                            caf::put_atom::value, batch);
    REQUIRE_EQ(res.size(), static_cast<size_t>(n));
    return res;
  }

  template <class Handle>
  nlohmann::json dump(const Handle& hdl) {
    return nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("broker.replication") {
  TEST_CASE_FIXTURE(fixture, "a slave copies what the master has and what "
                             "it appends later") {
    start();
    put(20);
    client = start_client("broker-a");
    CHECK_EQ(slave.store->write_offset(), master.store->write_offset());
    // Nothing new: the slave's ask is held at the master.
    CHECK_EQ(dump(service)["held_asks"], 1);
    // The master's next append wakes it.
    put(10, 20);
    CHECK_EQ(slave.store->write_offset(), master.store->write_offset());
    for (int q = 0; q < 2; ++q)
      CHECK_EQ(test::read_all(*slave.store, "T", q),
               test::read_all(*master.store, "T", q));
    // The ask the slave holds now says what it has: no lag.
    auto ha = dump(service);
    REQUIRE_EQ(ha["slaves"].size(), 1u);
    CHECK_EQ(ha["slaves"][0]["acked_offset"], master.store->write_offset());
    CHECK_EQ(ha["slaves"][0]["lag_bytes"], 0);
    auto c = dump(client);
    CHECK_GT(c["chunks"].get<int>(), 2);
    CHECK_EQ(c["lag_bytes"], 0);
    // A held ask past its wait comes back empty and is asked again.
    advance_time(3s, 500ms);
    CHECK_EQ(dump(service)["held_asks"], 1);
    CHECK_EQ(dump(client)["failures"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a slave of another group is refused and "
                             "writes nothing") {
    start();
    put(5);
    client = start_client("broker-b");
    CHECK_EQ(slave.store->write_offset(), 0);
    auto c = dump(client);
    CHECK_EQ(c["failures"], 1);
    CHECK_NE(c["last_error"].get<std::string>().find("master of broker-a"),
             std::string::npos);
    CHECK_EQ(dump(service)["refused"], 1);
    // It keeps asking, and keeps being refused.
    advance_time(2s, 1s);
    CHECK_EQ(dump(client)["failures"], 3);
    CHECK_EQ(slave.store->write_offset(), 0);
  }

  TEST_CASE_FIXTURE(fixture, "a master that goes away is noticed at once, "
                             "not at the held ask's timeout") {
    start();
    put(3);
    client = start_client("broker-a");
    CHECK_EQ(dump(service)["held_asks"], 1);
    caf::anon_send_exit(service, caf::exit_reason::kill);
    sched.run();
    auto c = dump(client);
    CHECK_EQ(c["failures"], 1);
    CHECK_NE(c["last_error"].get<std::string>().find("went away"),
             std::string::npos);
    // What it has stays; it asks nobody now.
    CHECK_EQ(slave.store->write_offset(), master.store->write_offset());
    advance_time(2s, 1s);
    CHECK_EQ(dump(client)["failures"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a slave that had part of the log resumes from "
                             "its own end") {
    start();
    put(6);
    auto first = master.store->read_log(0, 1 << 20);
    REQUIRE(first);
    // The slave had the first record only.
    auto one = master.store->read_log(0, 1);
    REQUIRE(one);
    REQUIRE_EQ(ask<int64_t>(slave.actors.commit_log, replica_atom::value,
                            replica_chunk{0, *one, 0, {}}),
               static_cast<int64_t>(one->size()));
    client = start_client("broker-a");
    CHECK_EQ(slave.store->write_offset(), master.store->write_offset());
    CHECK_EQ(test::read_all(*slave.store, "T", 0),
             test::read_all(*master.store, "T", 0));
    // Its writer refuses a chunk that does not follow its log.
    auto err = ask_error<int64_t>(slave.actors.commit_log, replica_atom::value,
                                  replica_chunk{0, *first, 0, {}});
    CHECK(err == errc::invalid_parameter);
  }

  TEST_CASE_FIXTURE(fixture, "an old master returning as a slave is cut "
                             "to where the new master's term began, then "
                             "copies; a refusal cuts nothing") {
    start();
    // The slave's store was the old master: term 1, five records.
    REQUIRE_EQ(*slave.store->begin_term(0), 1);
    std::vector<store_message> old;
    for (int i = 0; i < 5; ++i)
      old.push_back(test::make_message("T", 0, "old" + std::to_string(i)));
    ask<std::vector<put_result>>(slave.actors.commit_log, caf::put_atom::value,
                                 old);
    // The new master had copied three of them when it was promoted.
    int64_t at = 0;
    for (int i = 0; i < 3; ++i) {
      auto rec = slave.store->read_log(at, 1);
      REQUIRE(rec);
      REQUIRE_FALSE(master.store->append_replica(at, *rec));
      at += static_cast<int64_t>(rec->size());
    }
    REQUIRE_FALSE(master.store->adopt_terms(slave.store->epochs()));
    REQUIRE_EQ(*master.store->begin_term(0), 2);
    put(4);
    client = start_client("broker-a");
    // Cut at the third record's end, then the new master's log copied.
    auto c = dump(client);
    CHECK_EQ(c["reconciled"], true);
    CHECK_EQ(c["consistent_from"], at);
    CHECK_EQ(slave.store->write_offset(), master.store->write_offset());
    CHECK_EQ(test::read_all(*slave.store, "T", 0),
             test::read_all(*master.store, "T", 0));
    CHECK_EQ(slave.store->epochs(), master.store->epochs());
    CHECK_EQ(test::read_all(*slave.store, "T", 0).size(), 5u); // 3 + 2
  }

  TEST_CASE_FIXTURE(fixture, "a slave ahead of its master in the same term "
                             "is refused and keeps its log") {
    start();
    REQUIRE_EQ(*master.store->begin_term(0), 1);
    put(2);
    REQUIRE_FALSE(slave.store->adopt_terms(master.store->epochs()));
    std::vector<store_message> more;
    for (int i = 0; i < 4; ++i)
      more.push_back(test::make_message("T", 0, "more" + std::to_string(i)));
    ask<std::vector<put_result>>(slave.actors.commit_log, caf::put_atom::value,
                                 more);
    auto end = slave.store->write_offset();
    client = start_client("broker-a");
    auto c = dump(client);
    CHECK_EQ(c["reconciled"], false);
    CHECK_GE(c["refusals"].get<int>(), 1);
    CHECK_NE(c["last_error"].get<std::string>().find("same term"),
             std::string::npos);
    CHECK_EQ(slave.store->write_offset(), end);
    // It asks again every second; still refused, still whole.
    advance_time(3s, 1s);
    CHECK_GE(dump(client)["refusals"].get<int>(), 3);
    CHECK_EQ(slave.store->write_offset(), end);
    // The master never counted it as a slave with data.
    CHECK_EQ(dump(service)["slaves"].size(), 0u);
  }

  TEST_CASE_FIXTURE(fixture, "SYNC_MASTER: no slave in sync is "
                             "SLAVE_NOT_AVAILABLE, stored all the same") {
    start(true);
    auto res = put(2);
    for (auto& r : res) {
      CHECK(r.error == errc::slave_not_available);
      CHECK_GE(r.phys_offset, 0); // stored
    }
    CHECK_EQ(dump(master.actors.commit_log)["slave_unavailable"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "SYNC_MASTER: a batch is answered once the "
                             "slave has it") {
    start(true);
    client = start_client("broker-a");
    // The slave's first ask made it a slave in sync.
    auto handle = self->request(
      master.actors.commit_log, caf::infinite, caf::put_atom::value,
      std::vector<store_message>{test::make_message("T", 0, "sync")});
    sched.run();
    handle.receive(
      [&](const std::vector<put_result>& res) {
        REQUIRE_EQ(res.size(), 1u);
        CHECK_FALSE(res[0].error);
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    // Answered only after the slave's next ask said it has it.
    CHECK_EQ(slave.store->write_offset(), master.store->write_offset());
    CHECK_EQ(dump(master.actors.commit_log)["replica_acked_offset"],
             master.store->write_offset());
  }

  TEST_CASE_FIXTURE(fixture, "SYNC_MASTER: a slave that does not confirm in "
                             "time is FLUSH_SLAVE_TIMEOUT") {
    start(true);
    client = start_client("broker-a");
    // The slave stops asking (its client is gone) but was in sync.
    caf::anon_send_exit(client, caf::exit_reason::kill);
    sched.run();
    auto handle = self->request(
      master.actors.commit_log, caf::infinite, caf::put_atom::value,
      std::vector<store_message>{test::make_message("T", 0, "late")});
    sched.run();
    CHECK(self->mailbox().empty()); // waiting for the slave
    advance_time(6s, 500ms);        // past syncFlushTimeout (5 s)
    REQUIRE_FALSE(self->mailbox().empty());
    handle.receive(
      [&](const std::vector<put_result>& res) {
        REQUIRE_EQ(res.size(), 1u);
        CHECK(res[0].error == errc::flush_slave_timeout);
        CHECK_GE(res[0].phys_offset, 0);
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(dump(master.actors.commit_log)["slave_timeouts"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "SYNC_MASTER: a producer's retry of a message "
                             "the slave never confirmed is not SEND_OK") {
    start(true);
    client = start_client("broker-a");
    caf::anon_send_exit(client, caf::exit_reason::kill);
    sched.run();
    auto msg = test::make_message("T", 0, "retried", "", "", "UNIQ-1");
    auto first = self->request(master.actors.commit_log, caf::infinite,
                               caf::put_atom::value,
                               std::vector<store_message>{msg});
    sched.run();
    advance_time(6s, 500ms);
    first.receive(
      [&](const std::vector<put_result>& res) {
        REQUIRE_EQ(res.size(), 1u);
        CHECK(res[0].error == errc::flush_slave_timeout);
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    // The retry is the stored message (a duplicate), still on one copy.
    auto end = master.store->write_offset();
    auto again = self->request(master.actors.commit_log, caf::infinite,
                               caf::put_atom::value,
                               std::vector<store_message>{msg});
    sched.run();
    advance_time(6s, 500ms);
    REQUIRE_FALSE(self->mailbox().empty());
    again.receive(
      [&](const std::vector<put_result>& res) {
        REQUIRE_EQ(res.size(), 1u);
        CHECK(res[0].duplicate);
        CHECK((res[0].error == errc::flush_slave_timeout
               || res[0].error == errc::slave_not_available));
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(master.store->write_offset(), end);
  }
}
