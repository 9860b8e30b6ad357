// GET_NAMESRV_CONFIG / UPDATE_NAMESRV_CONFIG through the front actor: the
// RocketMQ property names, the black list, all-or-none updates, and that
// each change takes effect in the actor that uses it (time-driven ones on
// the virtual clock). Also GET_SYSTEM_TOPIC_LIST_FROM_NS.
#include "tests/actors/namesrv/namesrv_fixture.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

struct fixture : namesrv_fixture {
  std::map<std::string, std::string> config() {
    return ask<namesrv_config>(ns, get_namesrv_config_request{}).properties;
  }

  void update(std::map<std::string, std::string> props) {
    ask<caf::ok_atom>(ns, update_namesrv_config_request{std::move(props)});
  }

  caf::error update_error(std::map<std::string, std::string> props) {
    return ask_error<caf::ok_atom>(
      ns, update_namesrv_config_request{std::move(props)});
  }

  int64_t scans() {
    return dump_of("scan_timer")["scans"].get<int64_t>();
  }
};

} // namespace

TEST_SUITE("namesrv.config") {
  TEST_CASE_FIXTURE(fixture, "the config shows RocketMQ's names and defaults") {
    auto props = config();
    CHECK_EQ(props.at("scanNotActiveBrokerInterval"), "5000");
    CHECK_EQ(props.at("brokerChannelExpiredTime"), "120000");
    CHECK_EQ(props.at("orderMessageEnable"), "false");
    CHECK_EQ(props.at("enableAllTopicList"), "true");
    CHECK_EQ(props.at("enableTopicList"), "true");
    CHECK_EQ(props.at("deleteTopicWithBrokerRegistration"), "false");
    CHECK_EQ(props.at("returnOrderTopicConfigToBroker"), "true");
    CHECK_EQ(props.at("unRegisterBrokerQueueCapacity"), "3000");
    CHECK_EQ(props.at("listenPort"), "9876");
    CHECK_EQ(props.at("cafListenPort"), "9886");
    CHECK_EQ(props.at("kvConfigPath"), "");
    CHECK_EQ(props.at("configBlackList"),
             "configBlackList;configStorePath;kvConfigPath");
  }

  TEST_CASE_FIXTURE(fixture,
                    "black-listed keys are refused and nothing changes") {
    for (auto key : {"configBlackList", "configStorePath", "kvConfigPath",
                     "rocketmqHome"}) {
      auto err = update_error({{"orderMessageEnable", "true"}, {key, "/x"}});
      CHECK_MESSAGE(err == errc::no_permission, key);
      CHECK_EQ(error_detail(err), "Can not update config in black list.");
    }
    CHECK_EQ(config().at("orderMessageEnable"), "false");
  }

  TEST_CASE_FIXTURE(fixture, "unknown keys, start-only keys and bad values are "
                             "refused and nothing changes") {
    auto before = config();
    std::vector<std::map<std::string, std::string>> bad{
      {{"orderMessageEnable", "true"}, {"noSuchKey", "1"}},
      {{"orderMessageEnable", "true"}, {"listenPort", "1234"}},
      {{"orderMessageEnable", "true"}, {"unRegisterBrokerQueueCapacity", "1"}},
      {{"orderMessageEnable", "yes"}},
      {{"enableTopicList", ""}},
      {{"scanNotActiveBrokerInterval", "-1"}},
      {{"scanNotActiveBrokerInterval", "5s"}},
      {{"brokerChannelExpiredTime", "0"}},
      {{"brokerChannelExpiredTime", "99999999999999999999"}},
    };
    for (auto& props : bad) {
      auto err = update_error(props);
      CHECK_MESSAGE(err == errc::invalid_parameter, sys.render(err));
      CHECK_FALSE(error_detail(err).empty());
    }
    CHECK_EQ(config(), before);
    update({}); // an empty update is fine, as in RocketMQ
    CHECK_EQ(config(), before);
  }

  TEST_CASE_FIXTURE(fixture, "orderMessageEnable changes routes at once") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    ask<caf::ok_atom>(ns, put_kv_config_request{order_topic_config_namespace,
                                                "T1", "broker-a:8"});
    CHECK_EQ(route("T1").order_topic_conf, "");
    update({{"orderMessageEnable", "TRUE"}}); // Java parses case-blind
    CHECK_EQ(config().at("orderMessageEnable"), "true");
    CHECK_EQ(route("T1").order_topic_conf, "broker-a:8");
    update({{"orderMessageEnable", "false"}});
    CHECK_EQ(route("T1").order_topic_conf, "");
  }

  TEST_CASE_FIXTURE(fixture, "the topic list switches take effect") {
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    update({{"enableAllTopicList", "false"}, {"enableTopicList", "false"}});
    CHECK(ask_error<topic_list>(ns, get_all_topic_list_request{})
          == errc::system_error);
    CHECK(ask_error<topic_list>(ns, get_topics_by_cluster_request{cluster_a})
          == errc::system_error);
    update({{"enableAllTopicList", "true"}, {"enableTopicList", "true"}});
    CHECK_EQ(all_topics(), std::vector<std::string>{"T1"});
  }

  TEST_CASE_FIXTURE(fixture,
                    "deleteTopicWithBrokerRegistration and "
                    "returnOrderTopicConfigToBroker reach the route writer") {
    ask<caf::ok_atom>(ns, put_kv_config_request{order_topic_config_namespace,
                                                "T1", "broker-a:8"});
    auto reg = make_registration(cluster_a, "broker-a", addr0, 0, {"T1", "T2"});
    CHECK_EQ(register_broker(reg).kv_table.size(), 1u);
    update({{"deleteTopicWithBrokerRegistration", "true"},
            {"returnOrderTopicConfigToBroker", "false"}});
    CHECK_EQ(dump_of("route_writer")["delete_topic_with_broker_registration"],
             true);
    auto fewer = make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}, 1);
    CHECK(register_broker(fewer).kv_table.empty());
    CHECK_FALSE(routed("T2"));
    CHECK(routed("T1"));
  }

  TEST_CASE_FIXTURE(fixture,
                    "brokerChannelExpiredTime applies to brokers that sent no "
                    "timeout") {
    auto quiet = make_registration(cluster_a, "broker-a", addr0, 0, {"TA"});
    auto own = make_registration(cluster_a, "broker-b", addr1, 0, {"TB"});
    own.heartbeat_timeout_ms = 60'000;
    register_broker(quiet);
    register_broker(own);
    update({{"brokerChannelExpiredTime", "10000"}});
    CHECK_EQ(dump_of("broker_live_table")["default_timeout_ms"], 10'000);
    advance_time(10s, 5s);
    CHECK(routed("TA")); // at its timeout, not past it
    advance_time(5s, 5s);
    CHECK_FALSE(routed("TA"));
    CHECK(routed("TB")); // its own 60 s still hold
    advance_time(50s, 5s);
    CHECK_FALSE(routed("TB"));
  }

  TEST_CASE_FIXTURE(fixture,
                    "scanNotActiveBrokerInterval re-arms the scan from now") {
    advance_time(10s, 1s);
    CHECK_EQ(scans(), 2); // every 5 s
    advance_time(2s, 1s);
    update({{"scanNotActiveBrokerInterval", "1000"}});
    advance_time(10s, 1s);
    CHECK_EQ(scans(), 12); // every second from the change on, no old tick
    update({{"scanNotActiveBrokerInterval", "0"}});
    advance_time(60s, 5s);
    CHECK_EQ(scans(), 12); // off
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    advance_time(200s, 10s);
    CHECK(routed("T1")); // nobody scans, nobody expires
    update({{"scanNotActiveBrokerInterval", "30000"}});
    advance_time(30s, 10s);
    CHECK_EQ(scans(), 13);
    CHECK_FALSE(routed("T1"));
    CHECK_EQ(config().at("scanNotActiveBrokerInterval"), "30000");
  }

  TEST_CASE_FIXTURE(fixture,
                    "the system topic list has every cluster and broker "
                    "name and one broker address") {
    auto empty = ask<system_topic_list>(ns, get_system_topic_list_request{});
    CHECK(empty.topics.empty());
    CHECK(empty.broker_addr.empty());
    register_broker(make_registration(cluster_a, "broker-b", addr1, 0, {"T1"}));
    register_broker(make_registration(cluster_a, "broker-a", addr0, 0, {"T1"}));
    register_broker(make_registration(cluster_b, "broker-c", addr2, 0, {}));
    auto list = ask<system_topic_list>(ns, get_system_topic_list_request{});
    CHECK_EQ(list.topics,
             std::vector<std::string>{cluster_a, cluster_b, "broker-a",
                                      "broker-b", "broker-c"});
    CHECK_EQ(list.broker_addr, addr0);
  }

} // TEST_SUITE
