// The client-manager, subscription-group and queue-lock messages have their
// wire names, survive CAF's binary serialization and render their fields
// as JSON.
#include "messages/broker/client_manager.hpp"

#include <typeinfo>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/uniform_type_info_map.hpp"

#include "messages/common/errors.hpp"

#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

using fixture = test::message_fixture;

client_heartbeat make_heartbeat() {
  subscription_data sub{"TopicA",         "TagA || TagB", "TAG",
                        {"TagA", "TagB"}, {65, 66},       1700000000000};
  consumer_data cd;
  cd.group_name = "G";
  cd.type = consume_type::consume_actively;
  cd.model = message_model::broadcasting;
  cd.from_where = consume_from_where::consume_from_first_offset;
  cd.subscriptions = {sub};
  cd.unit_mode = true;
  return client_heartbeat{"10.0.0.1@1234", {"P"}, {cd}};
}

} // namespace

TEST_SUITE("messages.broker_client") {
  TEST_CASE_FIXTURE(fixture, "heartbeat messages are registered and "
                             "round-trip") {
    auto hb = make_heartbeat();
    auto j = check(hb, "rmq.client_heartbeat");
    CHECK_EQ(j["client_id"], "10.0.0.1@1234");
    CHECK_EQ(j["consumers"][0]["type"], "CONSUME_ACTIVELY");
    CHECK_EQ(j["consumers"][0]["model"], "BROADCASTING");
    CHECK_EQ(j["consumers"][0]["from_where"], "CONSUME_FROM_FIRST_OFFSET");
    CHECK_EQ(j["consumers"][0]["subscriptions"][0]["tags_set"][1], "TagB");
    check(hb.consumers[0], "rmq.consumer_data");
    check(hb.consumers[0].subscriptions[0], "rmq.subscription_data");
    auto u = check(unregister_client_request{"c", "P", "G"},
                   "rmq.unregister_client_request");
    CHECK_EQ(u["consumer_group"], "G");
    check(get_consumer_list_request{"G"}, "rmq.get_consumer_list_request");
    check(find_producer_channels{"P"}, "rmq.find_producer_channels");
    check(find_client_channel{"127.0.0.1@1"}, "rmq.find_client_channel");
    auto l = check(consumer_list{{"a", "b"}}, "rmq.consumer_list");
    CHECK_EQ(l["client_ids"][1], "b");
    check(consumer_ids_changed{"G"}, "rmq.consumer_ids_changed");
    CHECK_EQ(name_of<client_manager_actor>(), "rmq.client_manager_actor");
  }

  TEST_CASE_FIXTURE(fixture, "lock messages are registered and round-trip") {
    client_queue q{"T", "broker-a", 3};
    auto jq = check(q, "rmq.client_queue");
    CHECK_EQ(jq["queue_id"], 3);
    CHECK(client_queue{"T", "broker-a", 2} < q);
    CHECK_FALSE(q < q);
    auto jl = check(lock_batch_request{"G", "c", {q}},
                    "rmq.lock_batch_request");
    CHECK_EQ(jl["queues"][0]["broker_name"], "broker-a");
    check(unlock_batch_request{"G", "c", {q}}, "rmq.unlock_batch_request");
    check(locked_queues{{q}}, "rmq.locked_queues");
    CHECK_EQ(name_of<queue_lock_table_actor>(), "rmq.queue_lock_table_actor");
  }

  TEST_CASE_FIXTURE(fixture, "subscription group messages are registered, "
                             "round-trip and have RocketMQ's defaults") {
    subscription_group_config cfg;
    CHECK(cfg.consume_enable);
    CHECK(cfg.consume_broadcast_enable);
    CHECK_EQ(cfg.retry_queue_nums, 1);
    CHECK_EQ(cfg.retry_max_times, 16);
    CHECK_EQ(cfg.broker_id, 0);
    CHECK_EQ(cfg.which_broker_when_consume_slowly, 1);
    CHECK(cfg.notify_consumer_ids_changed_enable);
    cfg.group_name = "G";
    cfg.retry_max_times = 3;
    auto j = check(cfg, "rmq.subscription_group_config");
    CHECK_EQ(j["retry_max_times"], 3);
    auto js = check(subscription_group_set{{cfg}, data_version{0, 17, 2}},
                    "rmq.subscription_group_set");
    CHECK_EQ(js["version"]["counter"], 2);
    check(find_subscription_group_request{"G"},
          "rmq.find_subscription_group_request");
    auto err = make_error(errc::subscription_group_not_exist, "G");
    CHECK_EQ(err.code(), 26); // RocketMQ SUBSCRIPTION_GROUP_NOT_EXIST
    CHECK_EQ(describe(err), "rmq::subscription_group_not_exist: G");
    CHECK_EQ(name_of<subscription_group_table_actor>(),
             "rmq.subscription_group_table_actor");
    // Missing keys keep the defaults (files written by older versions).
    auto partial
      = nlohmann::json{{"group_name", "H"}}.get<subscription_group_config>();
    CHECK_EQ(partial.retry_max_times, 16);
  }
}
