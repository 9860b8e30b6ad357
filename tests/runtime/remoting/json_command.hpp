// A command as a Java client sends it: its JSON header (and body) framed,
// then read back by our frame reader.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/frame_codec.hpp"
#include "tests/support/frame_bytes.hpp"

namespace rmq::test {

inline remoting::remoting_command decoded(const std::string& header,
                                          const std::string& body = {}) {
  remoting::frame_reader r;
  r.feed(json_frame(header, body));
  auto cmd = r.next();
  REQUIRE_MESSAGE(cmd, r.error());
  return *cmd;
}

} // namespace rmq::test
