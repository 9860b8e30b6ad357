// The shared dump mechanism (actors/common/dump.hpp): one shape for every
// actor's dump, and a node dump that a stuck actor cannot block.
#include "actors/common/dump.hpp"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/typed_event_based_actor.hpp"

#include "tests/support/deterministic_fixture.hpp"

namespace {

using rmq::dump_atom;
using rmq::dumpable_actor;

struct counter_state {
  int hits = 7;

  nlohmann::json dump_fields() const {
    return {{"hits", hits}, {"actor", "not my name"}};
  }

  static const char* name;
};

const char* counter_state::name = "counter";

dumpable_actor::behavior_type
counter(dumpable_actor::stateful_pointer<counter_state> self) {
  return {rmq::dump_handler(self)};
}

// Takes dump requests and never answers them.
dumpable_actor::behavior_type mute(dumpable_actor::pointer self) {
  return {[self](dump_atom) -> caf::result<std::string> {
    return self->make_response_promise<std::string>();
  }};
}

using collector_actor = caf::typed_actor<
  caf::replies_to<dump_atom, std::vector<dumpable_actor>>::with<std::string>>;

collector_actor::behavior_type collector(collector_actor::pointer self) {
  return {[self](dump_atom, const std::vector<dumpable_actor>& parts) {
    return rmq::collect_dumps(self, "test", {{"actor", "collector"}}, parts,
                              std::chrono::seconds{10});
  }};
}

struct fixture : rmq::test::deterministic_fixture {};

} // namespace

TEST_SUITE("actors.dump") {
  TEST_CASE("render_dump names the actor and keeps the state's fields") {
    auto j = nlohmann::json::parse(rmq::render_dump("x", {{"a", 1}}));
    CHECK_EQ(j, nlohmann::json{{"actor", "x"}, {"a", 1}});
  }

  TEST_CASE_FIXTURE(fixture,
                    "a dump handler renders the state under its name") {
    auto hdl = spawn(counter);
    auto j = nlohmann::json::parse(ask<std::string>(hdl, dump_atom::value));
    CHECK_EQ(j["actor"], "counter");
    CHECK_EQ(j["hits"], 7);
  }

  TEST_CASE_FIXTURE(fixture,
                    "a node dump reports an actor that never answers") {
    auto good = spawn(counter);
    auto stuck = spawn(mute);
    auto coll = spawn(collector);
    std::vector<dumpable_actor> parts{good, stuck};
    auto rh = self->request(coll, caf::infinite, dump_atom::value, parts);
    sched.run();
    CHECK(self->mailbox().empty()); // still waiting for the mute actor
    advance_time(std::chrono::seconds{11}, std::chrono::seconds{1});
    std::string text;
    rh.receive([&](const std::string& x) { text = x; },
               [&](const caf::error& err) { FAIL(sys.render(err)); });
    auto j = nlohmann::json::parse(text);
    CHECK_EQ(j["node"], "test");
    REQUIRE_EQ(j["actors"].size(), 3u);
    CHECK_EQ(j["actors"][0]["actor"], "collector");
    int errors = 0;
    int counters = 0;
    for (auto& entry : j["actors"]) {
      errors += entry.contains("error") ? 1 : 0;
      counters += entry.value("actor", "") == "counter" ? 1 : 0;
    }
    CHECK_EQ(errors, 1);
    CHECK_EQ(counters, 1);
  }

} // TEST_SUITE
