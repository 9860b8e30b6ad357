// The registrar's interface has its wire name, so a remote broker front
// door can hand out its handle.
#include "messages/broker/namesrv_registrar.hpp"

#include <typeinfo>

#include <doctest/doctest.h>

#include "caf/uniform_type_info_map.hpp"

#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;

TEST_SUITE("messages.broker_registrar") {
  TEST_CASE_FIXTURE(test::deterministic_fixture,
                    "the registrar handle is registered") {
    CHECK_EQ(sys.types().portable_name(0, &typeid(namesrv_registrar_actor)),
             "rmq.namesrv_registrar_actor");
    // The timer atoms differ from each other (atoms are 10 characters at
    // most; longer ones would not compile).
    CHECK_NE(register_round_atom::value, heartbeat_round_atom::value);
  }
}
