// Defines what RMQ_DECLARE_MESSAGE declares, field by field: JSON keys are
// the C++ field names; missing keys keep the field's default on input.
// Include only from .cpp files: it pulls in the full nlohmann/json.
#pragma once

#include <nlohmann/json.hpp>

#define RMQ_EQ_FIELD(f) &&x.f == y.f

#define RMQ_DEFINE_MESSAGE(Type, ...)                                          \
  bool operator==(const Type& x, const Type& y) {                              \
    return true NLOHMANN_JSON_EXPAND(                                          \
      NLOHMANN_JSON_PASTE(RMQ_EQ_FIELD, __VA_ARGS__));                         \
  }                                                                            \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) { \
    nlohmann_json_j = nlohmann::json::object();                                \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))   \
  }                                                                            \
  void from_json(const nlohmann::json& nlohmann_json_j,                        \
                 Type& nlohmann_json_t) {                                      \
    const Type nlohmann_json_default_obj{};                                    \
    NLOHMANN_JSON_EXPAND(                                                      \
      NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))       \
  }

/// For structs without fields (requests that carry no arguments).
#define RMQ_DEFINE_EMPTY_MESSAGE(Type)                                         \
  bool operator==(const Type&, const Type&) {                                  \
    return true;                                                               \
  }                                                                            \
  void to_json(nlohmann::json& out, const Type&) {                             \
    out = nlohmann::json::object();                                            \
  }                                                                            \
  void from_json(const nlohmann::json&, Type&) {                               \
    /* nop */                                                                  \
  }
