// The node supervisor (actors/common/supervisor) on the virtual clock, with
// stand-in children: a child without state is respawned and works, a child
// with state stops the supervisor, and so does one that keeps dying.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caf/system_messages.hpp"

#include "actors/common/supervisor.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/supervisor_probe.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

using echo_actor = caf::typed_actor<caf::replies_to<int32_t>::with<int32_t>>;

echo_actor::behavior_type echo() {
  return {[](int32_t x) { return x; }};
}

struct fixture : deterministic_fixture {
  supervisor_options opts{2, std::chrono::seconds{60}};
  caf::actor stateless;
  caf::actor stateful;
  supervisor_actor sup;

  fixture() {
    stateless = caf::actor_cast<caf::actor>(sys.spawn(echo));
    stateful = caf::actor_cast<caf::actor>(sys.spawn(echo));
    std::vector<supervised_child> children{
      {"cache", stateless,
       [this] { return caf::actor_cast<caf::actor>(sys.spawn(echo)); }},
      {"table", stateful, nullptr}};
    // The supervisor first: at teardown it stops before its children.
    sup = spawn(supervisor, std::string{"test"}, children, opts);
    track(stateless);
    track(stateful);
    probe.emplace(*this, sup);
  }

  std::optional<supervisor_probe> probe;
};

} // namespace

TEST_SUITE("common.supervisor") {
  TEST_CASE_FIXTURE(fixture, "a killed child without state is respawned and "
                             "answers") {
    probe->kill("cache");
    CHECK_FALSE(probe->failure());
    auto next = probe->current("cache");
    REQUIRE(next);
    CHECK_NE(next, stateless);
    CHECK_EQ(ask<int32_t>(caf::actor_cast<echo_actor>(next), int32_t{7}), 7);
    auto dump = nlohmann::json::parse(ask<std::string>(sup, dump_atom::value));
    CHECK_EQ(dump["children"][0]["name"], "cache");
    CHECK_EQ(dump["children"][0]["restarts"], 1);
    CHECK_EQ(dump["children"][1]["restarts"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "a child with state stops the supervisor with "
                             "its name and reason") {
    probe->kill("table");
    auto why = probe->failure();
    REQUIRE(why);
    CHECK_NE(why->find("actor table exited"), std::string::npos);
    CHECK_NE(why->find("kill"), std::string::npos);
  }

  TEST_CASE_FIXTURE(fixture, "a child that keeps dying stops the supervisor") {
    for (size_t i = 0; i < opts.max_restarts; ++i) {
      probe->kill("cache");
      REQUIRE_FALSE(probe->failure());
    }
    probe->kill("cache");
    auto why = probe->failure();
    REQUIRE(why);
    CHECK_NE(why->find("actor cache exited"), std::string::npos);
  }

  TEST_CASE_FIXTURE(fixture, "respawns older than the restart window are "
                             "forgiven") {
    for (size_t i = 0; i < opts.max_restarts; ++i)
      probe->kill("cache");
    advance_time(opts.restart_window, 5s);
    probe->kill("cache");
    CHECK_FALSE(probe->failure());
    auto dump = nlohmann::json::parse(ask<std::string>(sup, dump_atom::value));
    CHECK_EQ(dump["children"][0]["restarts"], opts.max_restarts + 1);
  }

  TEST_CASE_FIXTURE(fixture, "the supervisor's exit stops the replacements it "
                             "spawned") {
    probe->kill("cache");
    auto next = probe->current("cache");
    self->monitor(next);
    caf::anon_send_exit(sup, caf::exit_reason::user_shutdown);
    sched.run();
    std::vector<caf::actor_addr> down;
    while (!self->mailbox().empty())
      self->receive(
        [&](const caf::down_msg& dm) { down.push_back(dm.source); });
    CHECK_EQ(down.size(), 2u); // the supervisor and the replacement
    CHECK(std::find(down.begin(), down.end(), next.address()) != down.end());
  }

} // TEST_SUITE
