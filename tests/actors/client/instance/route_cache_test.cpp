// The route cache against fake NameServers behind a fake directory, on the
// virtual clock: one fetch per topic however many ask, a refresh every
// poll interval, rotation past a failed NameServer, the last good route
// while all are down, pushes only on change.
#include "actors/client/instance/route_cache.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

const std::string ns1 = "10.0.0.1:9876";
const std::string ns2 = "10.0.0.2:9876";
const std::string ns3 = "10.0.0.3:9876";

/// What a listener was pushed.
struct pushes {
  std::vector<std::pair<std::string, topic_route_data>> got;
};

route_listener_actor::behavior_type
recording_listener(route_listener_actor::pointer, std::shared_ptr<pushes> out) {
  return {
    [=](route_atom, const std::string& topic, const topic_route_data& r) {
      out->got.emplace_back(topic, r);
    },
  };
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<test::fake_directory> net
    = std::make_shared<test::fake_directory>();
  std::map<std::string, std::shared_ptr<test::fake_namesrv>> stubs;
  peer_directory_actor directory;
  route_cache_actor cache;

  fixture() {
    directory = spawn(test::play_directory, net);
    for (auto& addr : {ns1, ns2, ns3}) {
      auto st = std::make_shared<test::fake_namesrv>();
      st->routes["TopicA"] = test::route_over({"broker-a"});
      st->routes["TopicB"] = test::route_over({"broker-b"});
      stubs[addr] = st;
      net->namesrvs[addr] = spawn(test::play_namesrv, st);
    }
  }

  void start(std::vector<std::string> addrs, uint32_t seed = 1) {
    route_cache_config cfg;
    cfg.namesrv_addrs = std::move(addrs);
    cfg.directory = directory;
    cfg.seed = seed;
    cache = spawn(route_cache, cfg);
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(cache, dump_atom::value));
  }

  std::string current() {
    return dump()["current"].get<std::string>();
  }

  topic_route_data route(const std::string& topic) {
    return ask<topic_route_data>(cache, route_atom::value, topic);
  }

  int asked(const std::string& topic) {
    int n = 0;
    for (auto& [addr, st] : stubs)
      n += st->asked[topic];
    return n;
  }

  /// Every stub's routes of `topic` become `r`.
  void set_route(const std::string& topic, const topic_route_data& r) {
    for (auto& [addr, st] : stubs)
      st->routes[topic] = r;
  }
};

} // namespace

TEST_SUITE("client.route_cache") {
  TEST_CASE_FIXTURE(fixture, "concurrent askers of one topic share one "
                             "fetch") {
    start({ns1, ns2});
    auto a = self->request(cache, caf::infinite, route_atom::value,
                           std::string{"TopicA"});
    auto b = self->request(cache, caf::infinite, route_atom::value,
                           std::string{"TopicA"});
    auto c = self->request(cache, caf::infinite, route_atom::value,
                           std::string{"TopicA"});
    sched.run();
    int answers = 0;
    for (auto* rh : {&a, &b, &c})
      rh->receive(
        [&](const topic_route_data& r) {
          CHECK_EQ(r, test::route_over({"broker-a"}));
          ++answers;
        },
        [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(answers, 3);
    CHECK_EQ(asked("TopicA"), 1);
    // A later asker gets the cached route without a request.
    route("TopicA");
    CHECK_EQ(asked("TopicA"), 1);
  }

  TEST_CASE_FIXTURE(fixture, "cached routes are refreshed every 30 s and not "
                             "before") {
    start({ns1});
    route("TopicA");
    route("TopicB");
    CHECK_EQ(asked("TopicA"), 1);
    advance_time(29s, 1s);
    CHECK_EQ(asked("TopicA"), 1);
    CHECK_EQ(asked("TopicB"), 1);
    advance_time(1s, 1s);
    CHECK_EQ(asked("TopicA"), 2);
    CHECK_EQ(asked("TopicB"), 2);
    advance_time(60s, 1s);
    CHECK_EQ(asked("TopicA"), 4);
    CHECK_EQ(dump()["ticks"], 3);
  }

  TEST_CASE_FIXTURE(fixture, "the first NameServer is picked by the seed and "
                             "kept while it answers") {
    start({ns1, ns2, ns3}, 7);
    auto first = current();
    route("TopicA");
    advance_time(90s, 1s);
    CHECK_EQ(stubs[first]->total(), 4);
    CHECK_EQ(current(), first);
    CHECK_EQ(dump()["rotations"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a NameServer that is down rotates to the next "
                             "and the route is still served") {
    start({ns1, ns2});
    auto first = current();
    auto second = first == ns1 ? ns2 : ns1;
    net->down.insert(first);
    CHECK_EQ(route("TopicA"), test::route_over({"broker-a"}));
    CHECK_EQ(current(), second);
    CHECK_EQ(stubs[second]->asked["TopicA"], 1);
    auto d = dump();
    CHECK_EQ(d["rotations"], 1);
    // Later refreshes stay with the one that answers.
    advance_time(30s, 1s);
    CHECK_EQ(stubs[second]->asked["TopicA"], 2);
    CHECK_EQ(current(), second);
  }

  TEST_CASE_FIXTURE(fixture, "fetches of several topics failing on one "
                             "NameServer rotate past it once") {
    start({ns1, ns2, ns3});
    auto first = current();
    net->down.insert(first);
    auto a = self->request(cache, caf::infinite, route_atom::value,
                           std::string{"TopicA"});
    auto b = self->request(cache, caf::infinite, route_atom::value,
                           std::string{"TopicB"});
    sched.run();
    for (auto* rh : {&a, &b})
      rh->receive([](const topic_route_data&) {},
                  [&](const caf::error& err) { FAIL(sys.render(err)); });
    auto d = dump();
    CHECK_EQ(d["rotations"], 1);
    CHECK_NE(current(), first);
    CHECK_EQ(stubs[current()]->total(), 2);
  }

  TEST_CASE_FIXTURE(fixture, "a NameServer that does not answer times out "
                             "and the next one serves") {
    start({ns1, ns2});
    auto first = current();
    auto second = first == ns1 ? ns2 : ns1;
    stubs[first]->hung = true;
    auto rh = self->request(cache, caf::infinite, route_atom::value,
                            std::string{"TopicA"});
    sched.run();
    CHECK(self->mailbox().empty());
    advance_time(3s, 1s);
    REQUIRE_FALSE(self->mailbox().empty());
    rh.receive(
      [&](const topic_route_data& r) {
        CHECK_EQ(r, test::route_over({"broker-a"}));
      },
      [&](const caf::error& err) { FAIL(sys.render(err)); });
    CHECK_EQ(current(), second);
    // The stuck connection is dropped so that the next connect is fresh.
    REQUIRE_EQ(net->forgotten.size(), 1u);
    CHECK_EQ(net->forgotten[0], first);
  }

  TEST_CASE_FIXTURE(fixture, "with every NameServer down the last good route "
                             "is kept and an uncached topic is "
                             "service_not_available") {
    start({ns1, ns2});
    route("TopicA");
    net->down = {ns1, ns2};
    advance_time(30s, 1s);
    CHECK_EQ(route("TopicA"), test::route_over({"broker-a"}));
    auto d = dump();
    REQUIRE_EQ(d["topics"].size(), 1u);
    CHECK_EQ(d["topics"][0]["failures"], 1);
    CHECK_EQ(d["topics"][0]["idle_ms"], 30000);
    // A refresh that fails everywhere still leaves the route in place.
    caf::anon_send(cache, refresh_atom::value, std::string{"TopicA"});
    sched.run();
    CHECK_EQ(route("TopicA"), test::route_over({"broker-a"}));
    auto err = ask_error<topic_route_data>(cache, route_atom::value,
                                           std::string{"TopicB"});
    CHECK_EQ(err, errc::service_not_available);
    // Back up: the next round refreshes as before.
    net->down.clear();
    set_route("TopicA", test::route_over({"broker-a", "broker-b"}));
    advance_time(30s, 1s);
    CHECK_EQ(route("TopicA"), test::route_over({"broker-a", "broker-b"}));
  }

  TEST_CASE_FIXTURE(fixture, "an unknown topic is topic_not_exist, not cached "
                             "and no reason to rotate") {
    start({ns1, ns2});
    auto first = current();
    auto err = ask_error<topic_route_data>(cache, route_atom::value,
                                           std::string{"Nope"});
    CHECK_EQ(err, errc::topic_not_exist);
    ask_error<topic_route_data>(cache, route_atom::value, std::string{"Nope"});
    CHECK_EQ(asked("Nope"), 2);
    CHECK_EQ(current(), first);
    CHECK(dump()["topics"].empty());
  }

  TEST_CASE_FIXTURE(fixture, "a changed route is pushed to listeners, an "
                             "unchanged one is not") {
    start({ns1});
    auto got = std::make_shared<pushes>();
    auto listener = spawn(recording_listener, got);
    caf::anon_send(cache, caf::subscribe_atom::value, listener);
    sched.run();
    route("TopicA");
    advance_time(30s, 1s);
    CHECK_EQ(asked("TopicA"), 2);
    CHECK(got->got.empty());
    // The same brokers in another order are no change either.
    auto r = test::route_over({"broker-a", "broker-b"});
    set_route("TopicA", r);
    advance_time(30s, 1s);
    REQUIRE_EQ(got->got.size(), 1u);
    CHECK_EQ(got->got[0].first, "TopicA");
    CHECK_EQ(got->got[0].second, r);
    std::swap(r.broker_datas[0], r.broker_datas[1]);
    std::swap(r.queue_datas[0], r.queue_datas[1]);
    set_route("TopicA", r);
    advance_time(30s, 1s);
    CHECK_EQ(got->got.size(), 1u);
    CHECK_EQ(dump()["listeners"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "refresh_atom fetches a topic at once") {
    start({ns1});
    route("TopicA");
    set_route("TopicA", test::route_over({"broker-b"}));
    caf::anon_send(cache, refresh_atom::value, std::string{"TopicA"});
    sched.run();
    CHECK_EQ(asked("TopicA"), 2);
    CHECK_EQ(route("TopicA"), test::route_over({"broker-b"}));
  }

  TEST_CASE_FIXTURE(fixture, "a lost broker refreshes the topics it serves") {
    start({ns1});
    route("TopicA"); // broker-a at a:10911, a:10921
    route("TopicB"); // broker-b
    caf::anon_send(cache, peer_lost_atom::value, std::string{"a:10921"});
    sched.run();
    CHECK_EQ(asked("TopicA"), 2);
    CHECK_EQ(asked("TopicB"), 1);
    // A NameServer's address serves no topic.
    caf::anon_send(cache, peer_lost_atom::value, ns1);
    sched.run();
    CHECK_EQ(asked("TopicA"), 2);
    CHECK_EQ(asked("TopicB"), 1);
  }

  TEST_CASE_FIXTURE(fixture, "brokers lists every broker of the cached routes "
                             "once") {
    start({ns1});
    set_route("TopicC", test::route_over({"broker-a", "broker-c"}));
    route("TopicA");
    route("TopicB");
    route("TopicC");
    auto brokers = ask<std::vector<broker_data>>(cache, brokers_atom::value);
    REQUIRE_EQ(brokers.size(), 3u);
    CHECK_EQ(brokers[0].broker_name, "broker-a");
    CHECK_EQ(brokers[1].broker_name, "broker-b");
    CHECK_EQ(brokers[2].broker_name, "broker-c");
    CHECK_EQ(brokers[0].broker_addrs.size(), 2u);
  }

  TEST_CASE_FIXTURE(fixture, "the dump shows NameServers, topics and their "
                             "age") {
    start({ns1, ns2});
    route("TopicA");
    advance_time(10s, 1s);
    auto d = dump();
    CHECK_EQ(d["actor"], "route_cache");
    CHECK_EQ(d["namesrvs"].size(), 2u);
    CHECK_EQ(d["poll_interval_ms"], 30000);
    REQUIRE_EQ(d["topics"].size(), 1u);
    CHECK_EQ(d["topics"][0]["topic"], "TopicA");
    CHECK_EQ(d["topics"][0]["brokers"][0], "broker-a");
    CHECK_EQ(d["topics"][0]["write_queues"], 4);
    CHECK_EQ(d["topics"][0]["idle_ms"], 10000);
  }
}
