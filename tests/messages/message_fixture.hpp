// What every message test needs: the wire name a type is registered under,
// a round trip through CAF's binary serialization (the format remote peers
// exchange) and one through JSON (dumps, rmq-admin).
#pragma once

#include <string>
#include <typeinfo>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/uniform_type_info_map.hpp"

#include "tests/support/deterministic_fixture.hpp"

namespace rmq::test {

struct message_fixture : deterministic_fixture {
  /// Serializes `x` and reads it back.
  template <class T>
  T roundtrip(const T& x) {
    caf::binary_serializer::container_type buf;
    caf::binary_serializer sink{sys, buf};
    auto copy = x; // 0.17 inspectors take mutable references
    REQUIRE_FALSE(sink(copy));
    T result;
    caf::binary_deserializer source{sys, buf};
    REQUIRE_FALSE(source(result));
    return result;
  }

  /// The name `T` is registered under ("rmq.<type>"), empty if none.
  template <class T>
  std::string name_of() {
    return sys.types().portable_name(0, &typeid(T));
  }

  /// Checks the wire name and both round trips; returns the JSON.
  template <class T>
  nlohmann::json check(const T& x, const std::string& name) {
    CAPTURE(name);
    CHECK_EQ(name_of<T>(), name);
    CHECK(roundtrip(x) == x);
    nlohmann::json j = x;
    CHECK(j.template get<T>() == x);
    return j;
  }
};

} // namespace rmq::test
