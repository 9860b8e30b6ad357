// The remoting front door of a node (docs/remoting.md, "Serving"): one CAF
// io broker owns the listening socket and its connections, cuts each
// connection's bytes into commands (runtime/remoting/frame_codec) and
// hands every request to the node's handler, which answers it with the
// same typed messages our own clients send and writes the answer back on
// the connection the request came in on. A connection that sends a bad
// frame (over the limit, a lying length, a header that does not parse),
// stalls mid-frame or stays silent too long is closed and logged with its
// peer's address; the others go on. Time comes from the actor clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "caf/actor.hpp"
#include "caf/expected.hpp"
#include "caf/fwd.hpp"
#include "caf/io/fwd.hpp"
#include "caf/timespan.hpp"

#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq {

/// Writes the answer to one request (at most once; nothing for a oneway
/// request or a connection that closed meanwhile).
using remoting_reply = std::function<void(remoting::remoting_command)>;

/// A node's requests: runs in the server broker (`self`), which may
/// `request` the node's actors and answer from their replies.
using remoting_handler = std::function<void(caf::io::broker* self,
                                            remoting::remoting_command request,
                                            remoting_reply reply)>;

struct remoting_server_options {
  /// For the log: "namesrv", "broker".
  std::string name = "remoting";
  /// RocketMQ's frameMaxLength.
  size_t max_frame = remoting::default_max_frame;
  /// A connection with no byte in either direction this long is closed
  /// (RocketMQ's serverChannelMaxIdleTimeSeconds). Clients heartbeat every
  /// 30 s and hold pulls for at most 30 s.
  caf::timespan idle_timeout = std::chrono::seconds{120};
  /// A frame begun and not finished within this closes its connection: a
  /// peer that stalls mid-frame holds a buffer for nothing.
  caf::timespan stall_timeout = std::chrono::seconds{10};
};

/// Spawns the front door and binds it to `host`:`port` (0 picks a free
/// one); answers the server and the bound port.
caf::expected<std::pair<caf::actor, uint16_t>>
start_remoting_server(caf::actor_system& sys, const std::string& host,
                      uint16_t port, remoting_server_options opts,
                      remoting_handler handler);

} // namespace rmq
