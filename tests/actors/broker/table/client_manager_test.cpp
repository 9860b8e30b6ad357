// The client manager on the virtual clock: heartbeats register consumers
// and producers, GET_CONSUMER_LIST, a lost channel drops at once, a silent
// one at the first scan after 120 s, group changes notify every member of
// clustering groups only, unregister, auto-create on and off, the retry
// topic, dumps.
#include "actors/broker/table/client_manager.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "actors/broker/table/subscription_group_table.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

using string_log = std::shared_ptr<std::vector<std::string>>;

// Stand-in for the topic config table: answers every group topic request
// with a retry topic and records the group.
topic_config_table_actor::behavior_type
fake_topic_table(topic_config_table_actor::pointer, string_log requests) {
  return {
    [](caf::get_atom, const std::string&) -> caf::result<topic_config> {
      return make_error(errc::topic_not_exist);
    },
    [](caf::get_atom) { return topic_config_set{}; },
    [](caf::put_atom, const topic_config&) { return data_version{}; },
    [](caf::delete_atom, const std::string&) { return data_version{}; },
    [](const topic_for_send_request&) -> caf::result<topic_config> {
      return make_error(errc::topic_not_exist);
    },
    [=](const group_topic_request& x) {
      requests->push_back(x.group + "/" + std::to_string(x.queue_nums));
      topic_config tc;
      tc.topic_name = "%RETRY%" + x.group;
      tc.read_queue_nums = tc.write_queue_nums = x.queue_nums;
      return tc;
    },
    [](caf::subscribe_atom, const caf::actor&) {},
    [](sync_atom, const topic_config_set&) {},
    [](save_atom) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// A client: relays heartbeats and unregistrations to the manager, so that
// it is the channel, and records the notifications it gets.
caf::behavior fake_client(caf::event_based_actor* self,
                          client_manager_actor mgr, string_log notified) {
  return {
    [=](const client_heartbeat& x) {
      auto rp = self->make_response_promise();
      self->request(mgr, caf::infinite, x)
        .then([rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
              [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [=](const consumer_ids_changed& x) { notified->push_back(x.group); },
  };
}

// A subscription group table that never answers a lookup.
subscription_group_table_actor::behavior_type
stalling_group_table(subscription_group_table_actor::pointer self) {
  return {
    [](caf::get_atom,
       const std::string&) -> caf::result<subscription_group_config> {
      return make_error(errc::subscription_group_not_exist);
    },
    [](caf::get_atom) { return subscription_group_set{}; },
    [](caf::put_atom, const subscription_group_config&) {
      return data_version{};
    },
    [](caf::delete_atom, const std::string&) { return data_version{}; },
    [](sync_atom, const subscription_group_set&) {},
    [self](const find_subscription_group_request&) {
      return self->make_response_promise<subscription_group_config>();
    },
    [](save_atom) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

struct client_handle {
  caf::actor hdl;
  string_log notified;
};

struct fixture : test::deterministic_fixture {
  string_log topic_requests = std::make_shared<std::vector<std::string>>();
  subscription_group_table_actor groups;
  topic_config_table_actor topics = spawn(fake_topic_table, topic_requests);
  client_manager_actor mgr;

  void start(bool auto_create = true) {
    subscription_group_table_options opts;
    opts.auto_create = auto_create;
    opts.wall_clock = [] { return int64_t{1700000000000}; };
    groups = spawn(subscription_group_table, opts);
    mgr = spawn(client_manager, client_manager_options{}, groups, topics);
  }

  client_handle client() {
    auto log = std::make_shared<std::vector<std::string>>();
    return {spawn(fake_client, mgr, log), log};
  }

  static consumer_data
  consumer(std::string group, std::vector<std::string> topics = {"T"},
           message_model model = message_model::clustering) {
    consumer_data cd;
    cd.group_name = std::move(group);
    cd.model = model;
    for (auto& t : topics)
      cd.subscriptions.push_back(subscription_data{t, "*", "TAG", {}, {}, 1});
    return cd;
  }

  void heartbeat(const client_handle& c, const std::string& id,
                 std::vector<consumer_data> consumers,
                 std::vector<std::string> producers = {}) {
    ask<caf::ok_atom>(c.hdl, client_heartbeat{id, producers, consumers});
  }

  std::vector<std::string> members(const std::string& group) {
    std::vector<std::string> result;
    request(mgr, get_consumer_list_request{group})
      .receive([&](const consumer_list& x) { result = x.client_ids; },
               [&](const caf::error& err) {
                 CHECK(err == errc::system_error);
               });
    return result;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(mgr, dump_atom::value));
  }

  void kill(const client_handle& c) {
    caf::anon_send_exit(c.hdl, caf::exit_reason::kill);
    sched.run();
  }
};

using strings = std::vector<std::string>;

} // namespace

TEST_SUITE("broker.client_manager") {
  TEST_CASE_FIXTURE(fixture, "a heartbeat registers a consumer and a "
                             "producer") {
    start();
    auto a = client();
    heartbeat(a, "A", {consumer("G", {"T1", "T2"})}, {"P"});
    CHECK_EQ(members("G"), strings{"A"});
    auto d = dump();
    CHECK_EQ(d["actor"], "client_manager");
    REQUIRE_EQ(d["consumer_groups"].size(), 1u);
    auto& g = d["consumer_groups"][0];
    CHECK_EQ(g["group"], "G");
    CHECK_EQ(g["message_model"], "CLUSTERING");
    CHECK_EQ(g["consume_type"], "CONSUME_PASSIVELY");
    CHECK_EQ(g["members"][0]["client_id"], "A");
    CHECK_EQ(g["subscriptions"].size(), 2u);
    REQUIRE_EQ(d["producer_groups"].size(), 1u);
    CHECK_EQ(d["producer_groups"][0]["group"], "P");
    CHECK_EQ(d["producer_groups"][0]["members"][0]["client_id"], "A");
    CHECK_EQ(d["channels"], 1);
    CHECK_EQ(d["heartbeats"], 1);
    CHECK_EQ(d["channel_expired_timeout_ms"], 120000);
    // The retry topic was asked for, with the group's retry queue count.
    CHECK_EQ(*topic_requests, strings{"G/1"});
  }

  TEST_CASE_FIXTURE(fixture, "GET_CONSUMER_LIST lists every member, sorted") {
    start();
    auto a = client();
    auto b = client();
    heartbeat(b, "B", {consumer("G")});
    heartbeat(a, "A", {consumer("G")});
    CHECK_EQ(members("G"), (strings{"A", "B"}));
    // An unknown group is RocketMQ's SYSTEM_ERROR "no consumer".
    auto err = ask_error<consumer_list>(mgr, get_consumer_list_request{"X"});
    CHECK(err == errc::system_error);
  }

  TEST_CASE_FIXTURE(fixture, "GET_CONSUMER_CONNECTION_LIST: members with "
                             "their addresses, subscriptions, settings") {
    start();
    auto a = client();
    auto b = client();
    client_heartbeat hb{"10.0.0.1@7", {}, {consumer("G", {"T1", "T2"})}};
    hb.client_addr = "10.0.0.1:51000";
    hb.language = "JAVA";
    hb.version = 401;
    ask<caf::ok_atom>(a.hdl, hb);
    heartbeat(b, "10.0.0.2@8", {consumer("G", {"T1"})}); // a CAF client
    auto cc = ask<consumer_connection>(mgr,
                                       get_consumer_connection_request{"G"});
    REQUIRE_EQ(cc.connections.size(), 2u);
    std::map<std::string, client_connection> by_id;
    for (auto& c : cc.connections)
      by_id[c.client_id] = c;
    CHECK_EQ(by_id["10.0.0.1@7"].client_addr, "10.0.0.1:51000");
    CHECK_EQ(by_id["10.0.0.1@7"].language, "JAVA");
    CHECK_EQ(by_id["10.0.0.1@7"].version, 401);
    // Without an address of its own: its client id's IP.
    CHECK_EQ(by_id["10.0.0.2@8"].client_addr, "10.0.0.2");
    CHECK_EQ(by_id["10.0.0.2@8"].language, "CPP");
    // The group's subscriptions are its latest heartbeat's (RocketMQ
    // updateSubscription): b's.
    REQUIRE_EQ(cc.subscriptions.size(), 1u);
    CHECK_EQ(cc.subscriptions[0].topic, "T1");
    CHECK_EQ(cc.model, message_model::clustering);
    auto err = ask_error<consumer_connection>(
      mgr, get_consumer_connection_request{"X"});
    CHECK(err == errc::system_error);
  }

  TEST_CASE_FIXTURE(fixture, "push channels: a producer group's members, the "
                             "most recently heard first, and one client's") {
    start();
    auto a = client();
    auto b = client();
    heartbeat(a, "A", {}, {"P"});
    sched.advance_time(1s);
    heartbeat(b, "B", {consumer("G")}, {"P"});
    CHECK_EQ(ask<std::vector<caf::actor>>(mgr, find_producer_channels{"P"}),
             (std::vector<caf::actor>{b.hdl, a.hdl}));
    CHECK(
      ask<std::vector<caf::actor>>(mgr, find_producer_channels{"X"}).empty());
    CHECK_EQ(ask<caf::actor>(mgr, find_client_channel{"A"}), a.hdl);
    CHECK_EQ(ask<caf::actor>(mgr, find_client_channel{"B"}), b.hdl);
    auto err = ask_error<caf::actor>(mgr, find_client_channel{"C"});
    CHECK(err == errc::system_error);
    kill(a);
    CHECK_EQ(ask<std::vector<caf::actor>>(mgr, find_producer_channels{"P"}),
             (std::vector<caf::actor>{b.hdl}));
    CHECK(ask_error<caf::actor>(mgr, find_client_channel{"A"})
          == errc::system_error);
  }

  TEST_CASE_FIXTURE(fixture, "a lost channel is dropped at once and the "
                             "others are told") {
    start();
    auto a = client();
    auto b = client();
    heartbeat(a, "A", {consumer("G")}, {"P"});
    heartbeat(b, "B", {consumer("G")});
    a.notified->clear();
    kill(b);
    CHECK_EQ(members("G"), strings{"A"});
    CHECK_EQ(*a.notified, strings{"G"});
    kill(a);
    CHECK(members("G").empty());
    auto d = dump();
    CHECK(d["consumer_groups"].empty());
    CHECK(d["producer_groups"].empty());
    CHECK_EQ(d["channels"], 0);
    CHECK_EQ(d["closed_channels"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a silent client is dropped at the first scan "
                             "after 120 s, and not before") {
    start();
    auto a = client();
    auto b = client();
    heartbeat(a, "A", {consumer("G")}, {"P"});
    heartbeat(b, "B", {consumer("G")});
    // B keeps beating every 30 s, A goes silent.
    for (int i = 0; i < 4; ++i) {
      advance_time(30s, 1s);
      heartbeat(b, "B", {consumer("G")});
    }
    // 120 s since A's heartbeat: the scan at 120 s keeps it.
    CHECK_EQ(members("G"), (strings{"A", "B"}));
    a.notified->clear();
    b.notified->clear();
    advance_time(9s, 1s);
    CHECK_EQ(members("G"), (strings{"A", "B"}));
    advance_time(1s, 1s); // the scan at 130 s
    CHECK_EQ(members("G"), strings{"B"});
    CHECK_EQ(*b.notified, strings{"G"});
    auto d = dump();
    CHECK(d["producer_groups"].empty()); // A was P's only producer
    CHECK_EQ(d["expired_channels"], 1);
    CHECK_EQ(d["channels"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a change of members or topics notifies every "
                             "member") {
    start();
    auto a = client();
    auto b = client();
    heartbeat(a, "A", {consumer("G", {"T1"})});
    CHECK_EQ(*a.notified, strings{"G"}); // a new member: itself too
    heartbeat(b, "B", {consumer("G", {"T1"})});
    CHECK_EQ(*a.notified, (strings{"G", "G"}));
    CHECK_EQ(*b.notified, strings{"G"});
    // The same heartbeat again changes nothing.
    heartbeat(a, "A", {consumer("G", {"T1"})});
    CHECK_EQ(a.notified->size(), 2u);
    // A newer version of the same subscription is no change either.
    auto newer = consumer("G", {"T1"});
    newer.subscriptions[0].sub_version = 2;
    newer.subscriptions[0].sub_string = "TagA";
    heartbeat(a, "A", {newer});
    CHECK_EQ(a.notified->size(), 2u);
    CHECK_EQ(dump()["consumer_groups"][0]["subscriptions"][0]["sub_string"],
             "TagA");
    // A new topic is.
    heartbeat(a, "A", {consumer("G", {"T1", "T2"})});
    CHECK_EQ(a.notified->size(), 3u);
    CHECK_EQ(b.notified->size(), 2u);
    // So is a dropped one.
    heartbeat(b, "B", {consumer("G", {"T2"})});
    CHECK_EQ(a.notified->size(), 4u);
    CHECK_EQ(b.notified->size(), 3u);
    CHECK_EQ(dump()["notifications"], 7);
  }

  TEST_CASE_FIXTURE(fixture, "broadcasting groups and groups with "
                             "notification off are not told") {
    start();
    subscription_group_config quiet;
    quiet.group_name = "Q";
    quiet.notify_consumer_ids_changed_enable = false;
    ask<data_version>(groups, caf::put_atom::value, quiet);
    auto a = client();
    auto b = client();
    auto bc = message_model::broadcasting;
    heartbeat(a, "A", {consumer("BC", {"T"}, bc), consumer("Q")});
    heartbeat(b, "B", {consumer("BC", {"T"}, bc), consumer("Q")});
    kill(b);
    CHECK(a.notified->empty());
    CHECK_EQ(members("BC"), strings{"A"});
    CHECK_EQ(members("Q"), strings{"A"});
    CHECK_EQ(dump()["notifications"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "unregister removes the client and tells the "
                             "rest") {
    start();
    auto a = client();
    auto b = client();
    heartbeat(a, "A", {consumer("G")}, {"P"});
    heartbeat(b, "B", {consumer("G")}, {"P"});
    b.notified->clear();
    ask<caf::ok_atom>(mgr, unregister_client_request{"A", "P", "G"});
    CHECK_EQ(members("G"), strings{"B"});
    CHECK_EQ(*b.notified, strings{"G"});
    auto d = dump();
    REQUIRE_EQ(d["producer_groups"].size(), 1u);
    CHECK_EQ(d["producer_groups"][0]["members"].size(), 1u);
    CHECK_EQ(d["producer_groups"][0]["members"][0]["client_id"], "B");
    CHECK_EQ(d["channels"], 1); // A is in no group: no longer watched
    ask<caf::ok_atom>(mgr, unregister_client_request{"B", "", "G"});
    CHECK(members("G").empty());
    CHECK_EQ(dump()["producer_groups"].size(), 1u); // B still produces
  }

  TEST_CASE_FIXTURE(fixture, "an unknown group is auto-created when on") {
    start(true);
    auto a = client();
    heartbeat(a, "A", {consumer("NEW")});
    CHECK_EQ(members("NEW"), strings{"A"});
    auto cfg = ask<subscription_group_config>(groups, caf::get_atom::value,
                                              std::string{"NEW"});
    CHECK_EQ(cfg.group_name, "NEW");
    CHECK_EQ(*topic_requests, strings{"NEW/1"});
  }

  TEST_CASE_FIXTURE(fixture, "an unknown group is skipped when auto-create "
                             "is off") {
    start(false);
    auto a = client();
    // The heartbeat succeeds, as in RocketMQ, but registers nothing.
    heartbeat(a, "A", {consumer("NEW")}, {"P"});
    CHECK(members("NEW").empty());
    CHECK(topic_requests->empty());
    auto d = dump();
    CHECK_EQ(d["skipped_consumers"], 1);
    CHECK_EQ(d["producer_groups"].size(), 1u);
    // A configured group still works.
    subscription_group_config cfg;
    cfg.group_name = "NEW";
    cfg.retry_queue_nums = 2;
    ask<data_version>(groups, caf::put_atom::value, cfg);
    heartbeat(a, "A", {consumer("NEW")});
    CHECK_EQ(members("NEW"), strings{"A"});
    CHECK_EQ(*topic_requests, strings{"NEW/2"});
  }

  TEST_CASE_FIXTURE(fixture, "a silent channel in no group is forgotten") {
    start(false);
    auto a = client();
    heartbeat(a, "A", {consumer("NEW")}); // skipped: in no group
    CHECK_EQ(dump()["channels"], 1);
    advance_time(120s, 10s);
    CHECK_EQ(dump()["channels"], 1);
    advance_time(10s, 10s);
    auto d = dump();
    CHECK_EQ(d["channels"], 0);
    CHECK_EQ(d["expired_channels"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a stalled group table fails the heartbeat, "
                             "and the manager keeps serving") {
    groups = spawn(stalling_group_table);
    client_manager_options opts;
    mgr = spawn(client_manager, opts, groups, topics);
    auto a = client();
    auto rh = self->request(a.hdl, caf::infinite,
                            client_heartbeat{"A", {"P"}, {consumer("G")}});
    sched.run();
    CHECK(self->mailbox().empty());
    advance_time(opts.table_timeout, 1s);
    bool failed = false;
    rh.receive([](caf::ok_atom) { FAIL("expected an error"); },
               [&](const caf::error& err) {
                 failed = true;
                 CHECK(err == caf::sec::request_timeout);
               });
    CHECK(failed);
    CHECK(members("G").empty());
    CHECK(topic_requests->empty());
    auto d = dump();
    CHECK_EQ(d["producer_groups"].size(), 1u); // producers need no table
    CHECK_EQ(d["heartbeats"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a heartbeat without client id is refused") {
    start();
    auto a = client();
    auto err = ask_error<caf::ok_atom>(a.hdl, client_heartbeat{"", {"P"}, {}});
    CHECK(err == errc::invalid_parameter);
    CHECK(dump()["producer_groups"].empty());
  }
}
