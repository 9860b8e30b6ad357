// Every request with a bad name, address, id or perm gets a typed rmq error
// from the front actor, and the node keeps serving afterwards. Also: the
// node's dump has one entry per actor.
#include "tests/actors/namesrv/namesrv_fixture.hpp"

#include <set>

#include "runtime/common/validators.hpp"

using namespace rmq;
using namespace rmq::test;

namespace {

struct fixture : namesrv_fixture {
  /// Sends `req` (reply type `T` on success) and checks that it is refused
  /// with `code`; `what` names the case in failure messages.
  template <class T, class Request>
  void expect(errc code, const Request& req, const char* what) {
    auto err = ask_error<T>(ns, req);
    CHECK_MESSAGE(err == code, what << ": " << sys.render(err));
  }

  register_broker_request good() {
    return make_registration(cluster_a, "broker-a", addr0, 0, {"T1"});
  }

  /// The node still registers and routes after the bad requests.
  void check_still_serving() {
    register_broker(good());
    CHECK(routed("T1"));
  }
};

constexpr auto invalid = errc::invalid_parameter;

} // namespace

TEST_SUITE("namesrv.bad_input") {
  TEST_CASE_FIXTURE(fixture, "bad registrations are refused as invalid") {
    using result = register_broker_result;
    auto r = good();
    r.cluster_name = "";
    expect<result>(invalid, r, "empty cluster");
    r = good();
    r.broker_name = "broker a";
    expect<result>(invalid, r, "space in broker name");
    r = good();
    r.broker_name = std::string(128, 'b');
    expect<result>(invalid, r, "broker name too long");
    for (auto addr : {"", "10.0.0.1", ":10911", "10.0.0.1:0", "10.0.0.1:65536",
                      "10.0.0.1:port", "10.0.0 .1:10911"}) {
      r = good();
      r.broker_addr = addr;
      expect<result>(invalid, r, addr);
    }
    r = good();
    r.broker_id = -1;
    expect<result>(invalid, r, "negative id");
    r = good();
    r.ha_server_addr = "nowhere";
    expect<result>(invalid, r, "bad HA address");
    r = good();
    r.heartbeat_timeout_ms = -5;
    expect<result>(invalid, r, "negative timeout");
    r = good();
    r.topics[0].topic_name = std::string(max_registered_topic_length + 1, 't');
    expect<result>(invalid, r, "topic too long");
    r = good();
    r.topics[0].topic_name = "T\n1";
    expect<result>(invalid, r, "control character in topic");
    r = good();
    r.topics[0].topic_name = "";
    expect<result>(invalid, r, "empty topic");
    for (auto p : {-1, 8, 42}) {
      r = good();
      r.topics[0].perm = p;
      expect<result>(invalid, r, "bad perm");
    }
    r = good();
    r.topics[0].write_queue_nums = -1;
    expect<result>(invalid, r, "negative queue count");
    r = good();
    r.has_filter_servers = true;
    r.filter_server_list = {"not-an-address"};
    expect<result>(invalid, r, "bad filter server address");
    CHECK(clusters().broker_addr_table.empty());
    CHECK_EQ(dump_of("route_writer")["registrations"], 0);
    check_still_serving();
  }

  TEST_CASE_FIXTURE(fixture, "a longest legal topic is accepted") {
    auto r = good();
    r.topics[0].topic_name = std::string(max_registered_topic_length, 't');
    register_broker(r);
    CHECK(routed(std::string(max_registered_topic_length, 't')));
  }

  TEST_CASE_FIXTURE(fixture,
                    "a registration takes every topic a RocketMQ broker "
                    "announces") {
    // RocketMQ's NameServer checks no topic names on REGISTER_BROKER; these
    // are what real brokers send and check_topic (client side) refuses.
    auto r = make_registration(cluster_a, "broker-host.example.com", addr0, 0,
                               {});
    std::vector<std::string> names{
      "broker-host.example.com",         // the broker's own topic
      "%RETRY%" + std::string(248, 'g'), // a 255-character retry topic
      "%RETRY%GID_1+TopicA",             // 5.x pop retry topic
      "rmq_sys_TRACE_DATA_region.a",     // dots
    };
    for (auto& name : names) {
      CHECK(check_topic(name)); // the client-side check still refuses it
      r.topics.push_back(make_topic(name));
    }
    register_broker(r);
    for (auto& name : names) {
      CHECK_MESSAGE(routed(name), name);
    }
    CHECK_EQ(all_topics().size(), names.size());
    ask<caf::ok_atom>(ns, delete_topic_request{names[0], ""});
    CHECK_FALSE(routed(names[0]));
  }

  TEST_CASE_FIXTURE(fixture,
                    "bad unregistrations, heartbeats and version queries are "
                    "refused as invalid") {
    register_broker(good());
    auto u = unregistration_of(good());
    u.broker_addr = "";
    expect<caf::ok_atom>(invalid, u, "unregister: empty address");
    u = unregistration_of(good());
    u.broker_name = "a*b";
    expect<caf::ok_atom>(invalid, u, "unregister: illegal name");
    u = unregistration_of(good());
    u.broker_id = -1;
    expect<caf::ok_atom>(invalid, u, "unregister: negative id");
    auto h = heartbeat_of(good());
    h.cluster_name = "";
    expect<caf::ok_atom>(invalid, h, "heartbeat: empty cluster");
    h = heartbeat_of(good());
    h.broker_addr = "10.0.0.1:99999";
    expect<caf::ok_atom>(invalid, h, "heartbeat: bad port");
    h = heartbeat_of(good());
    h.broker_id = -3;
    expect<caf::ok_atom>(invalid, h, "heartbeat: negative id");
    query_data_version_request q{"", addr0, "broker-a", 0, {}};
    expect<query_data_version_result>(invalid, q, "query: empty cluster");
    q = {cluster_a, addr0, "broker-a", -1, {}};
    expect<query_data_version_result>(invalid, q, "query: negative id");
    CHECK(routed("T1")); // none of them touched the broker
    heartbeat(good());
  }

  TEST_CASE_FIXTURE(fixture, "bad reads and topic admin requests are refused "
                             "as invalid") {
    expect<topic_route_data>(invalid, get_route_info_request{""},
                             "route: empty");
    expect<topic_route_data>(
      invalid,
      get_route_info_request{std::string(max_registered_topic_length + 1, 't')},
      "route: too long");
    expect<topic_route_data>(invalid, get_route_info_request{"a\tb"},
                             "route: control character");
    expect<topic_list>(invalid, get_topics_by_cluster_request{""},
                       "topics by cluster: empty");
    expect<broker_member_group>(invalid,
                                get_broker_member_group_request{cluster_a, ""},
                                "member group: empty broker");
    expect<write_perm_result>(invalid, wipe_write_perm_request{"a b"},
                              "wipe: illegal name");
    expect<write_perm_result>(invalid, add_write_perm_request{""},
                              "add: empty name");
    expect<caf::ok_atom>(invalid, delete_topic_request{"", ""},
                         "delete: empty topic");
    expect<caf::ok_atom>(invalid, delete_topic_request{"T1", "bad cluster"},
                         "delete: bad cluster");
    expect<caf::ok_atom>(invalid, register_topic_request{"T/1", {}},
                         "register topic: bad topic");
    expect<caf::ok_atom>(
      invalid, register_topic_request{"T1", {queue_data{"", 1, 1, 6, 0}}},
      "register topic: empty broker");
    expect<caf::ok_atom>(
      invalid,
      register_topic_request{"T1", {queue_data{"broker-a", 1, 1, 9, 0}}},
      "register topic: bad perm");
    expect<caf::ok_atom>(
      invalid,
      register_topic_request{"T1", {queue_data{"broker-a", -1, 1, 6, 0}}},
      "register topic: negative queues");
    expect<caf::ok_atom>(invalid, put_kv_config_request{"", "k", "v"},
                         "kv put: empty namespace");
    expect<caf::ok_atom>(
      invalid,
      put_kv_config_request{"ns", "k", std::string(max_kv_value_size + 1, 'v')},
      "kv put: value over the limit");
    expect<caf::ok_atom>(
      invalid, put_kv_config_request{"ns", std::string(256, 'k'), "v"},
      "kv put: key over the limit");
    expect<std::string>(invalid, get_kv_config_request{"ns", ""},
                        "kv get: empty key");
    expect<caf::ok_atom>(invalid, delete_kv_config_request{"", "k"},
                         "kv delete: empty namespace");
    expect<kv_table>(invalid, get_kv_list_by_namespace_request{""},
                     "kv list: empty namespace");
    check_still_serving();
  }

  TEST_CASE_FIXTURE(
    fixture, "a heartbeat of an unregistered broker is broker_not_found") {
    expect<caf::ok_atom>(errc::broker_not_found, heartbeat_of(good()),
                         "heartbeat before registration");
    check_still_serving();
    heartbeat(good());
  }

  TEST_CASE_FIXTURE(fixture,
                    "the node dump has one entry per actor of the node") {
    register_broker(good());
    auto dump = dump_node();
    CHECK_EQ(dump["node"], "namesrv");
    auto& actors = dump["actors"];
    REQUIRE(actors.is_array());
    CHECK_EQ(actors.size(), node.actors.size());
    std::set<std::string> names;
    for (auto& entry : actors) {
      REQUIRE_MESSAGE(entry.contains("actor"), entry.dump());
      names.insert(entry["actor"].get<std::string>());
    }
    CHECK_EQ(names,
             std::set<std::string>{
               "broker_addr_table", "broker_live_table", "cluster_table",
               "filter_server_table", "kv_config_table", "namesrv_frontend",
               "route_reader", "route_writer", "scan_timer",
               "topic_queue_table", "unregistration_batcher"});
    CHECK_EQ(actors[0]["actor"], "namesrv_frontend");
    CHECK_EQ(actors[0]["watched_channels"], 1);
    CHECK_EQ(dump_of("broker_addr_table")["brokers"][0]["broker_name"],
             "broker-a");
  }

} // TEST_SUITE
