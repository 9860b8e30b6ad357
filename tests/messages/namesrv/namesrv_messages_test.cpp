// Every NameServer message type (messages/namesrv/route.hpp, messages/namesrv/namesrv.hpp)
// is registered under "rmq.<name>", survives CAF's binary serializer with
// non-default values, converts to JSON and back, and a few have their exact
// JSON text pinned. Debian's CAF has no type-ID checks: a type that is not
// registered only shows at run time, so this test is the check.
#include <string>
#include <typeinfo>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/uniform_type_info_map.hpp"

#include "messages/namesrv/namesrv.hpp"
#include "messages/namesrv/route.hpp"
#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

data_version version() {
  return {3, 1'700'000'000'000, 7};
}

topic_config topic() {
  return {"TopicTest", 4, 2, perm::read, 1, 3, true};
}

queue_data queue() {
  return {"broker-a", 4, 2, perm::read_write, 1};
}

broker_data group() {
  return {"DefaultCluster",
          "broker-a",
          {{0, "10.0.0.1:10921"}, {1, "10.0.0.2:10921"}},
          {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}},
          "zone-1",
          true};
}

register_broker_request registration() {
  return {"DefaultCluster",
          "10.0.0.1:10921",
          "broker-a",
          1,
          "10.0.0.1:10912",
          "10.0.0.1:10911",
          "zone-1",
          30'000,
          true,
          version(),
          {topic()},
          true,
          {"10.0.0.9:30000"}};
}

struct fixture : rmq::test::message_fixture {
  /// Registration, binary round trip and JSON round trip of one type.
  /// `x` must differ from a default-constructed T unless T has no fields.
  template <class T>
  void check(const std::string& name, const T& x, bool has_fields = true) {
    INFO("type " << name);
    CHECK_EQ(name_of<T>(), name);
    if (has_fields)
      CHECK(x != T{});
    CHECK(roundtrip(x) == x);
    nlohmann::json json = x;
    CHECK(json.is_object());
    CHECK(json.get<T>() == x);
  }
};

} // namespace

TEST_SUITE("messages.namesrv") {
  TEST_CASE_FIXTURE(fixture, "route types are registered and round-trip") {
    check("rmq.data_version", version());
    check("rmq.topic_config", topic());
    check("rmq.queue_data", queue());
    check("rmq.broker_data", group());
    check("rmq.topic_route_data",
          topic_route_data{"broker-a:4",
                           {queue()},
                           {group()},
                           {{"10.0.0.1:10911", {"10.0.0.9:30000"}}}});
    check("rmq.cluster_info",
          cluster_info{{{"broker-a", group()}},
                       {{"DefaultCluster", {"broker-a", "broker-b"}}}});
    check("rmq.topic_list", topic_list{{"T1", "T2"}});
  }

  TEST_CASE_FIXTURE(fixture,
                    "broker request types are registered and round-trip") {
    check("rmq.register_broker_request", registration());
    check("rmq.register_broker_result",
          register_broker_result{
            "10.0.0.1:10912", "10.0.0.1:10911", {{"T1", "broker-a:8"}}});
    check("rmq.unregister_broker_request",
          unregister_broker_request{"C", "10.0.0.1:10911", "broker-a", 2});
    check("rmq.broker_heartbeat_request",
          broker_heartbeat_request{"C", "10.0.0.1:10911", "broker-a", 2});
    check("rmq.query_data_version_request",
          query_data_version_request{"C", "10.0.0.1:10911", "broker-a", 2,
                                     version()});
    check("rmq.query_data_version_result",
          query_data_version_result{false, version()});
    check("rmq.get_broker_member_group_request",
          get_broker_member_group_request{"C", "broker-a"});
    check("rmq.broker_member_group",
          broker_member_group{"C", "broker-a", {{0, "10.0.0.1:10911"}}});
  }

  TEST_CASE_FIXTURE(fixture,
                    "admin and client request types are registered and "
                    "round-trip") {
    check("rmq.get_broker_cluster_info_request",
          get_broker_cluster_info_request{}, false);
    check("rmq.wipe_write_perm_request", wipe_write_perm_request{"broker-a"});
    check("rmq.add_write_perm_request", add_write_perm_request{"broker-a"});
    check("rmq.write_perm_result", write_perm_result{3});
    check("rmq.get_all_topic_list_request", get_all_topic_list_request{},
          false);
    check("rmq.get_topics_by_cluster_request",
          get_topics_by_cluster_request{"C"});
    check("rmq.delete_topic_request", delete_topic_request{"T1", "C"});
    check("rmq.register_topic_request",
          register_topic_request{"T1", {queue(), queue()}});
    check("rmq.get_route_info_request", get_route_info_request{"T1"});
  }

  TEST_CASE_FIXTURE(fixture, "kv config types are registered and round-trip") {
    check("rmq.put_kv_config_request", put_kv_config_request{"ns", "k", "v"});
    check("rmq.get_kv_config_request", get_kv_config_request{"ns", "k"});
    check("rmq.delete_kv_config_request", delete_kv_config_request{"ns", "k"});
    check("rmq.get_kv_list_by_namespace_request",
          get_kv_list_by_namespace_request{"ns"});
    check("rmq.kv_table", kv_table{{{"k1", "v1"}, {"k2", "v2"}}});
  }

  TEST_CASE_FIXTURE(fixture, "config and system topic types are registered and "
                             "round-trip") {
    check("rmq.get_namesrv_config_request", get_namesrv_config_request{},
          false);
    check("rmq.namesrv_config", namesrv_config{{{"orderMessageEnable", "true"},
                                                {"listenPort", "1"}}});
    check("rmq.update_namesrv_config_request",
          update_namesrv_config_request{{{"enableTopicList", "false"}}});
    check("rmq.get_system_topic_list_request", get_system_topic_list_request{},
          false);
    check("rmq.system_topic_list",
          system_topic_list{{"DefaultCluster", "broker-a"}, "10.0.0.1:10911"});
    CHECK_EQ(nlohmann::json(system_topic_list{{"C"}, "10.0.0.1:10911"}).dump(),
             R"({"broker_addr":"10.0.0.1:10911","topics":["C"]})");
    CHECK_EQ(nlohmann::json(namesrv_config{{{"k", "v"}}}).dump(),
             R"({"properties":{"k":"v"}})");
  }

  TEST_CASE_FIXTURE(fixture, "the published interface and id maps are "
                             "registered") {
    CHECK_EQ(sys.types().portable_name(0, &typeid(namesrv_actor)),
             "rmq.namesrv_actor");
    CHECK_EQ(sys.types().portable_name(0,
                                       &typeid(std::map<int64_t, std::string>)),
             "rmq.broker_addrs");
  }

  TEST_CASE_FIXTURE(fixture, "equality compares every field") {
    auto x = registration();
    auto y = x;
    y.filter_server_list.clear();
    CHECK(x != y);
    y = x;
    y.version.counter += 1;
    CHECK(x != y);
    auto g = group();
    g.enable_acting_master = false;
    CHECK(g != group());
  }

  TEST_CASE_FIXTURE(fixture, "route values have the documented JSON text") {
    CHECK_EQ(nlohmann::json(version()).dump(),
             R"({"counter":7,"state_version":3,"timestamp":1700000000000})");
    CHECK_EQ(nlohmann::json(queue()).dump(),
             R"({"broker_name":"broker-a","perm":6,"read_queue_nums":4,)"
             R"("topic_sys_flag":1,"write_queue_nums":2})");
    CHECK_EQ(
      nlohmann::json(group()).dump(),
      R"({"broker_addrs":[[0,"10.0.0.1:10921"],[1,"10.0.0.2:10921"]],)"
      R"("broker_name":"broker-a","cluster":"DefaultCluster",)"
      R"("enable_acting_master":true,"remoting_addrs":[[0,)"
      R"("10.0.0.1:10911"],[1,"10.0.0.2:10911"]],"zone_name":"zone-1"})");
    CHECK_EQ(nlohmann::json(topic_list{{"T1", "T2"}}).dump(),
             R"({"topics":["T1","T2"]})");
  }

  TEST_CASE_FIXTURE(fixture, "request values have the documented JSON text") {
    CHECK_EQ(nlohmann::json(
               unregister_broker_request{"C", "10.0.0.1:10911", "broker-a", 2})
               .dump(),
             R"({"broker_addr":"10.0.0.1:10911","broker_id":2,)"
             R"("broker_name":"broker-a","cluster_name":"C"})");
    CHECK_EQ(nlohmann::json(query_data_version_result{false, version()}).dump(),
             R"({"changed":false,"version":{"counter":7,"state_version":3,)"
             R"("timestamp":1700000000000}})");
    CHECK_EQ(nlohmann::json(get_all_topic_list_request{}).dump(), "{}");
    CHECK_EQ(nlohmann::json(kv_table{{{"k1", "v1"}}}).dump(),
             R"({"table":{"k1":"v1"}})");
  }

  TEST_CASE_FIXTURE(fixture, "JSON input keeps defaults for missing keys") {
    auto req = nlohmann::json::parse(R"({"cluster_name":"C",)"
                                     R"("broker_addr":"10.0.0.1:10911"})")
                 .get<register_broker_request>();
    CHECK_EQ(req.cluster_name, "C");
    CHECK_EQ(req.broker_id, master_id);
    CHECK_EQ(req.heartbeat_timeout_ms, 0);
    CHECK(req.topics.empty());
    auto cfg
      = nlohmann::json::parse(R"({"topic_name":"T"})").get<topic_config>();
    CHECK_EQ(cfg.read_queue_nums, 16);
    CHECK_EQ(cfg.perm, perm::read_write);
  }

} // TEST_SUITE
