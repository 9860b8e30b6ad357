// One request as a Java client sends it, over our remoting client; the
// answer is REQUIREd.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/remoting_client.hpp"

namespace rmq::test {

inline remoting::remoting_command
remoting_call(remoting::remoting_client& c, int32_t code,
              std::map<std::string, std::string> fields, std::string body = {},
              std::chrono::milliseconds timeout = std::chrono::seconds{10}) {
  remoting::remoting_command req;
  req.code = code;
  req.language = "JAVA";
  req.ext_fields = std::move(fields);
  req.body = std::move(body);
  auto res = c.call(req, timeout);
  REQUIRE_MESSAGE(res, c.error());
  return *res;
}

} // namespace rmq::test
