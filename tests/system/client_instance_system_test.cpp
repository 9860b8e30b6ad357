// The client instance's peer directory and route cache over real loopback
// TCP: a route from a real rmq-node NameServer, a bounded failure for a
// port nobody listens on, and heartbeats that register a consumer group at
// a real broker until the instance stops.
#include <chrono>
#include <string>

#include <doctest/doctest.h>

#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/instance/peer_directory.hpp"
#include "actors/client/instance/route_cache.hpp"
#include "messages/common/errors.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

using clock_type = std::chrono::steady_clock;

/// Asks with several message elements and waits at most `timeout`.
template <class Result, class Handle, class... Ts>
caf::expected<Result> ask_for(caf::scoped_actor& self, const Handle& hdl,
                              caf::timespan timeout, Ts... xs) {
  caf::expected<Result> out{caf::make_error(caf::sec::request_timeout)};
  self->request(hdl, timeout, std::move(xs)...)
    .receive([&](Result& x) { out = std::move(x); },
             [&](caf::error& err) { out = std::move(err); });
  return out;
}

/// A directory and a route cache in the test process's real actor system,
/// stopped with the object (the system waits for its actors).
struct client_actors {
  remote_client client;
  peer_directory_actor directory;
  route_cache_actor cache;

  client_actors(std::vector<std::string> namesrvs,
                caf::timespan connect_timeout) {
    peer_directory_config dc;
    dc.connect_timeout = connect_timeout;
    directory = client.sys.spawn(peer_directory, dc);
    route_cache_config rc;
    rc.namesrv_addrs = std::move(namesrvs);
    rc.directory = directory;
    rc.connect_timeout = connect_timeout;
    cache = client.sys.spawn(route_cache, rc);
  }

  ~client_actors() {
    caf::anon_send_exit(cache, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(directory, caf::exit_reason::user_shutdown);
  }
};

} // namespace

TEST_SUITE("system.client_instance") {
  TEST_CASE("the route cache gets a route from a real NameServer through "
            "the real peer directory") {
    auto ns = start_namesrv();
    auto broker = start_broker({ns.addr()}, "broker-a", "TopicA");
    client_actors c{{ns.addr()}, 3s};
    auto route = ask_for<topic_route_data>(
      c.client.self, c.cache, 10s, route_atom::value, std::string{"TopicA"});
    REQUIRE_MESSAGE(route, c.client.sys.render(route.error()));
    REQUIRE_EQ(route->broker_datas.size(), 1u);
    CHECK_EQ(route->broker_datas[0].broker_name, "broker-a");
    REQUIRE_EQ(route->queue_datas.size(), 1u);
    CHECK_EQ(route->queue_datas[0].write_queue_nums, 4);
    // A topic the NameServer does not know is its answer, not an outage.
    auto none = ask_for<topic_route_data>(c.client.self, c.cache, 10s,
                                          route_atom::value,
                                          std::string{"NoSuchTopic"});
    REQUIRE_FALSE(none);
    CHECK_EQ(none.error(), errc::topic_not_exist);
  }

  TEST_CASE("a connect to a closed port fails within the connect timeout") {
    auto port = unused_port();
    auto addr = "127.0.0.1:" + std::to_string(port);
    client_actors c{{addr}, 2s};
    auto start = clock_type::now();
    auto hdl = ask_for<client_namesrv_actor>(c.client.self, c.directory, 10s,
                                             caf::connect_atom::value,
                                             route_atom::value, addr);
    auto took = clock_type::now() - start;
    REQUIRE_FALSE(hdl);
    CHECK_NE(hdl.error(), caf::sec::request_timeout);
    CHECK(took < 2s + 500ms);
    // The route cache, with no NameServer reachable and nothing cached.
    start = clock_type::now();
    auto route = ask_for<topic_route_data>(
      c.client.self, c.cache, 10s, route_atom::value, std::string{"TopicA"});
    took = clock_type::now() - start;
    REQUIRE_FALSE(route);
    CHECK_EQ(route.error(), errc::service_not_available);
    CHECK(took < 2s + 500ms);
  }

  TEST_CASE("a client instance's heartbeats register its group at a real "
            "broker, and its end unregisters it") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto broker = start_broker_node(one_broker(ns, dir.path() + "/a"));
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_routed_topic(client, front, ns.port, "TopicA", 4);
    client_config cfg;
    cfg.namesrv = ns.addr();
    cfg.instance_name = "system";
    auto inst = client_instance_for(client.sys, cfg);
    REQUIRE(inst);
    auto id = (*inst)->client_id;
    auto route = ask_for<topic_route_data>(client.self, (*inst)->routes, 10s,
                                           route_atom::value,
                                           std::string{"TopicA"});
    REQUIRE_MESSAGE(route, client.sys.render(route.error()));
    CHECK_EQ(route->broker_datas.at(0).broker_addrs.at(0), broker.addr());
    consumer_data c;
    c.group_name = "CG";
    subscription_data sub;
    sub.topic = "TopicA";
    c.subscriptions.push_back(sub);
    auto ok = ask_for<caf::ok_atom>(client.self, (*inst)->heartbeats, 10s,
                                    consumer_atom::value, c);
    REQUIRE(ok);
    auto members = [&] {
      auto list = client.ask<consumer_list>(front,
                                            get_consumer_list_request{"CG"});
      return list ? list->client_ids : std::vector<std::string>{};
    };
    CHECK_EQ(members(), std::vector<std::string>{id});
    // The broker watches the heartbeat sender: its end is the client's.
    inst = caf::error{};
    CHECK(wait_until([&] { return members().empty(); }, 10s));
  }
}
