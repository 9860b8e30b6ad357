// Declares the free functions every rmq message struct has: equality (tests
// and CAF's test DSL) and JSON conversion (dumps, rmq-admin). The JSON
// functions are declared against json_fwd.hpp so that message headers stay
// cheap to include; messages/common/message_def.hpp defines them in the .cpp.
#pragma once

#include <nlohmann/json_fwd.hpp>

#define RMQ_DECLARE_MESSAGE(Type)                                              \
  bool operator==(const Type& x, const Type& y);                               \
  inline bool operator!=(const Type& x, const Type& y) {                       \
    return !(x == y);                                                          \
  }                                                                            \
  void to_json(nlohmann::json& out, const Type& x);                            \
  void from_json(const nlohmann::json& in, Type& x)
