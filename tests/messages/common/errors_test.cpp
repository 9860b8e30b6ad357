// rmq errors keep their code, category and detail, render readably, and
// survive CAF's binary serialization (they cross the network in replies).
#include "messages/common/errors.hpp"

#include <doctest/doctest.h>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/sec.hpp"

#include "tests/support/deterministic_fixture.hpp"

TEST_SUITE("messages.errors") {
  TEST_CASE_FIXTURE(rmq::test::deterministic_fixture,
                    "an rmq error renders its name and detail") {
    auto err = rmq::make_error(rmq::errc::topic_not_exist, "no route for T1");
    CHECK(err == rmq::errc::topic_not_exist);
    CHECK_EQ(err.code(), 17);
    CHECK_EQ(sys.render(err), "rmq::topic_not_exist: no route for T1");
    CHECK_EQ(rmq::describe(err), "rmq::topic_not_exist: no route for T1");
    CHECK_EQ(rmq::error_detail(err), "no route for T1");
    CHECK_EQ(rmq::describe(caf::make_error(caf::sec::request_timeout)),
             "caf::request_timeout");
  }

  TEST_CASE_FIXTURE(rmq::test::deterministic_fixture,
                    "an rmq error survives binary serialization") {
    auto err = rmq::make_error(rmq::errc::invalid_parameter, "bad name");
    caf::binary_serializer::container_type buf;
    caf::binary_serializer sink{sys, buf};
    REQUIRE_FALSE(sink(err));
    caf::error copy;
    caf::binary_deserializer source{sys, buf};
    REQUIRE_FALSE(source(copy));
    CHECK(copy == rmq::errc::invalid_parameter);
    CHECK_EQ(rmq::error_detail(copy), "bad name");
  }

} // TEST_SUITE
